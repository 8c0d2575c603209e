#!/usr/bin/env bash
# The thirteenth call of the day (the device tool), from the repository root, carrying .deps/usr.tar.gz and
# .deps/cutlass.tar.xz; everything lands in $OUT/run13-<gpu>.tar.gz. Under 7 minutes:
#   - every GPU test of the lean build after flash3's kernels became rows of the kernel menu (one
#     generator, one registry), flash3_check's forward and backward correctness;
#   - flash3's paged forward at n = 4096 (run11's problem, 64-token pages, then 16-row boxes without the
#     hoisted table reads) and d = 128 at 2 × 32 heads, n = 2048, held out of the TMA copy fit.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
res=/tmp/run13-res build=build-gpu
mkdir -p "${OUT:-/tmp/out}" "$res"
tar -xzf .deps/usr.tar.gz -C .deps && tar -xJf .deps/cutlass.tar.xz -C .deps
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export IOSIM_CONFIG_DIR="$PWD/configs" IOSIM_SCENARIO_DIR="$PWD/scenarios" PATH="/usr/local/cuda/bin:$PATH"
export CMAKE_PREFIX_PATH="$PWD/.deps/usr/lib/x86_64-linux-gnu/cmake:$PWD/.deps/usr"  # an environment list: colons
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in *H100*) cfg=h100 ;; *) cfg=h200 ;; esac
finish() { cp results/gpu-2026-12-06/run13.sh "$res/"; tar -czf "${OUT:-/tmp/out}/run13-$cfg.tar.gz" -C "$res" .; }
trap finish EXIT
t0=$SECONDS
stamp() { echo "$1: exit $2 at $((SECONDS - t0)) s" | tee -a "$res/stamps.txt"; }
left() { echo $((${RUN13_BUDGET:-400} - SECONDS + t0)); }
{ date -u; echo "GPU: $gpu (config $cfg.yaml)"; nvidia-smi; nvcc --version | tail -2; } >"$res/environment.txt" 2>&1
rm -f "$build/CMakeCache.txt"
tests=(window_paged flash3_backend kernels masked decode window_bwd window_decode profiler)
targets="iosim flash3_check flash3_dispatch_test"; for t in "${tests[@]}"; do targets+=" gpu_test_$t"; done
timeout 240 bash -c "cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DIOSIM_STATIC_DEPS=ON -DIOSIM_BUILD_BENCH=OFF \
    -DIOSIM_BUILD_TESTS=ON -DIOSIM_NOTEBOOK_TESTS=OFF -DIOSIM_PYTHON=OFF -DIOSIM_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    && cmake --build $build -j$(nproc) --target $targets" >"$res/build.log" 2>&1
stamp build $?
tail -3 "$res/build.log"
run() {  # name, timeout, command...
  local name=$1 limit=$2; shift 2
  if [ "$(left)" -le "$limit" ]; then echo "$name: not run (no time left)" | tee -a "$res/stamps.txt"; return; fi
  timeout "$limit" "$@" >"$res/$name.txt" 2>&1
  stamp "$name" $?
}
f3=$(find "$build" -name flash3_dispatch_test -type f -perm -u+x | head -1)
[ -n "$f3" ] && run flash3-dispatch 30 "$f3"
for t in "${tests[@]}"; do
  [ -x "$build/tests/gpu/gpu_test_$t" ] || { echo "gpu_test_$t: not built" | tee -a "$res/stamps.txt"; continue; }
  run "gpu-test-$t" 90 "$build/tests/gpu/gpu_test_$t"
done
f3c=$(find "$build" -name flash3_check -type f -perm -u+x | head -1)
[ -n "$f3c" ] && run flash3-check-correctness 60 "$f3c" correctness
[ -n "$f3c" ] && run flash3-check-correctness-bwd 90 "$f3c" correctness-bwd
[ -n "$f3c" ] && run flash3-check-list 10 "$f3c" list
validate() {
  local name=$1; shift
  run "validate-$name" 40 "$build/iosim" validate --config "$cfg.yaml" --out "$res" --runs 5 --warmup 2 "$@"
}
for p in 16 64; do
  validate "flash3-4096-page$p-random" --schedule flash3 --pass fwd --shape 1,16,4096,128 --causal --page-size "$p" \
    --page-order random
done
validate flash3-4096-unpaged --schedule flash3 --pass fwd --shape 1,16,4096,128 --causal
for p in 16 256; do
  validate "flash3-2x32-2048-page$p" --schedule flash3 --pass fwd --shape 2,32,2048,128 --page-size "$p" --page-order random
done
validate flash3-2x32-2048-unpaged --schedule flash3 --pass fwd --shape 2,32,2048,128
validate quick --quick
