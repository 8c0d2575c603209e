#!/usr/bin/env bash
# The twelfth call of the day (the device tool), from the repository root, carrying .deps/usr.tar.gz and
# .deps/cutlass.tar.xz; everything lands in $OUT/run12-<gpu>.tar.gz. Under 7 minutes:
#   - every GPU test of the lean build, flash3's paged forward against the reference among them (run11
#     skipped it: its probe named no tile), after the schedules' CUDA kernels lost their enum;
#   - DRAM writes now less a clean L2's drain (cuda/measure.cpp): decoding and `validate --quick`;
#   - flash3's paged forward (one TMA copy a tile where a page holds whole tiles, 16-row boxes below)
#     under memcheck and racecheck at pages of 256 and 16, and timed at pages of 16, 64, 128 and 256
#     tokens, in order and random.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
res=/tmp/run12-res build=build-gpu
mkdir -p "${OUT:-/tmp/out}" "$res"
tar -xzf .deps/usr.tar.gz -C .deps && tar -xJf .deps/cutlass.tar.xz -C .deps
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export IOSIM_CONFIG_DIR="$PWD/configs" IOSIM_SCENARIO_DIR="$PWD/scenarios" PATH="/usr/local/cuda/bin:$PATH"
export CMAKE_PREFIX_PATH="$PWD/.deps/usr/lib/x86_64-linux-gnu/cmake:$PWD/.deps/usr"  # an environment list: colons
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in *H100*) cfg=h100 ;; *) cfg=h200 ;; esac
finish() { cp results/gpu-2026-12-06/run12.sh "$res/"; tar -czf "${OUT:-/tmp/out}/run12-$cfg.tar.gz" -C "$res" .; }
trap finish EXIT
t0=$SECONDS
stamp() { echo "$1: exit $2 at $((SECONDS - t0)) s" | tee -a "$res/stamps.txt"; }
left() { echo $((400 - SECONDS + t0)); }
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
validate() {
  local name=$1; shift
  run "validate-$name" 40 "$build/iosim" validate --config "$cfg.yaml" --out "$res" --runs 5 --warmup 2 "$@"
}
validate decode --schedule flashdecode --shape 2,32,1,64 --n-kv 16384 --page-size 16 --page-order random
validate quick --quick
for args in "--batch 2 --heads 4 --kv-heads 2 --n 200 --n-kv 333 --causal --page-size 256 --page-order random" \
            "--batch 1 --heads 4 --kv-heads 2 --n 333 --n-kv 1000 --causal --page-size 16 --page-order random"; do
  for tool in memcheck racecheck; do
    if [ "$(left)" -le 40 ]; then echo "$tool: no time left" | tee -a "$res/stamps.txt"; break; fi
    # shellcheck disable=SC2086  # $args is a list of flags, split on purpose
    timeout 60 compute-sanitizer --tool "$tool" --error-exitcode 3 "$build/iosim" measure --config "$cfg.yaml" \
      --schedule flash3 --pass fwd --d 128 --no-counters --runs 1 --warmup 0 $args >>"$res/sanitizer-$tool.log" 2>&1
    stamp "$tool flash3 ${args// /_}" $?
  done
done
for p in 16 64 128 256; do
  for order in contiguous random; do
    validate "flash3-page$p-$order" --schedule flash3 --pass fwd --shape 1,16,8192,128 --causal --page-size "$p" \
      --page-order "$order"
  done
done
validate flash3-unpaged --schedule flash3 --pass fwd --shape 1,16,8192,128 --causal
for shape in 1,16,32768,128 8,16,4096,128; do
  for p in 16 256; do
    validate "flash3-$shape-page$p-random" --schedule flash3 --pass fwd --shape "$shape" --causal --page-size "$p" \
      --page-order random
  done
  validate "flash3-$shape-unpaged" --schedule flash3 --pass fwd --shape "$shape" --causal
done
