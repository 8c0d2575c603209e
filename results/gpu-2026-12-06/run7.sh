#!/usr/bin/env bash
# The seventh call of the day (the device tool), from the repository root, carrying .deps/usr.tar.gz and
# .deps/cutlass.tar.xz (scripts/vendor-deps' folders, packed: the folders themselves pass the carry
# limit beside the tree); everything lands in $OUT/run7-<gpu>.tar.gz. Under 9 minutes:
#   1. a build of iosim, flash3 and the GPU tests of the window (lean menu);
#   2. run7.d/*.sh in turn: the sliding window in flash1's forward, flash1's and flash2's backward,
#      decoding and flash3 — the GPU tests against the double-precision reference, iosim validate
#      (bytes and time against the model), compute-sanitizer memcheck and racecheck.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
res=/tmp/run7-res build=build-gpu
mkdir -p "${OUT:-/tmp/out}" "$res"
tar -xzf .deps/usr.tar.gz -C .deps && tar -xJf .deps/cutlass.tar.xz -C .deps
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export IOSIM_CONFIG_DIR="$PWD/configs" IOSIM_SCENARIO_DIR="$PWD/scenarios" PATH="/usr/local/cuda/bin:$PATH"
export CMAKE_PREFIX_PATH="$PWD/.deps/usr/lib/x86_64-linux-gnu/cmake:$PWD/.deps/usr"  # an environment list: colons
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in *H100*) cfg=h100 ;; *) cfg=h200 ;; esac
finish() { cp results/gpu-2026-12-06/run7.sh "$res/"; tar -czf "${OUT:-/tmp/out}/run7-$cfg.tar.gz" -C "$res" .; }
trap finish EXIT
t0=$SECONDS
stamp() { echo "$1: exit $2 at $((SECONDS - t0)) s" | tee -a "$res/stamps.txt"; }
left() { echo $((500 - SECONDS + t0)); }
{ date -u; echo "GPU: $gpu (config $cfg.yaml)"; git rev-parse HEAD 2>/dev/null; nvidia-smi; nproc; nvcc --version | tail -2
  compute-sanitizer --version | tail -1; } >"$res/environment.txt" 2>&1
timeout 280 bash -c "cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DIOSIM_STATIC_DEPS=ON -DIOSIM_BUILD_BENCH=OFF \
    -DIOSIM_BUILD_TESTS=ON -DIOSIM_NOTEBOOK_TESTS=OFF -DIOSIM_PYTHON=OFF -DIOSIM_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    && cmake --build $build -j$(nproc) --target iosim gpu_test_window_bwd gpu_test_window_decode gpu_test_flash3_backend \
       gpu_test_decode" >"$res/build.log" 2>&1
stamp build $?
tail -3 "$res/build.log"
gpu_test() {
  if [ ! -x "$build/tests/gpu/gpu_test_$1" ] || [ "$(left)" -le 30 ]; then
    echo "gpu_test_$1: not run (not built, or no time left)" | tee -a "$res/stamps.txt"; return
  fi
  local t; t=$(left); [ "$t" -gt "$2" ] && t=$2
  timeout "$t" "$build/tests/gpu/gpu_test_$1" >"$res/gpu-test-$1.txt" 2>&1
  stamp "gpu_test_$1" $?
}
validate() {
  local name=$1; shift
  local t; t=$(left)
  if [ "$t" -le 15 ]; then echo "validate $name: no time left" | tee -a "$res/stamps.txt"; return; fi
  [ "$t" -gt 45 ] && t=45
  timeout "$t" "$build/iosim" validate --config "$cfg.yaml" --out "$res" --runs 10 --warmup 3 "$@" \
    2>"$res/validate-$name-progress.txt" >/dev/null
  stamp "validate $name" $?
}
sanitize() {
  local tool=$1 name=$2; shift 2
  if [ "$(left)" -le 15 ]; then echo "$tool $name: no time left" | tee -a "$res/stamps.txt"; return; fi
  timeout 60 compute-sanitizer --tool "$tool" --error-exitcode 3 "$build/iosim" measure --config "$cfg.yaml" --d 64 \
    --no-counters --runs 1 --warmup 0 "$@" >>"$res/sanitizer-$tool.log" 2>&1
  stamp "$tool $name" $?
}
for part in results/gpu-2026-12-06/run7.d/*.sh; do
  # shellcheck source=/dev/null
  source "$part"
done
tail -3 "$res"/gpu-test-*.txt
