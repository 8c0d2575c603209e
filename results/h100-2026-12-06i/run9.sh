#!/usr/bin/env bash
# The ninth call of the day (the device tool), from the repository root, carrying .deps/usr.tar.gz and
# .deps/cutlass.tar.xz; everything lands in $OUT/run9-<gpu>.tar.gz. Under 8 minutes: the CUDA side now
# takes each kernel's buffers from the registry entry (sim/schedule/cuda_kernels.h) instead of switches:
# every GPU test of the lean build against the double-precision reference, `validate --quick` (counters
# and time against the model, as before the change), the paged and windowed slices whose buffer order
# moved, naive with a sliding window (its softmax masks it now), and compute-sanitizer memcheck on them.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
res=/tmp/run9-res build=build-gpu
mkdir -p "${OUT:-/tmp/out}" "$res"
tar -xzf .deps/usr.tar.gz -C .deps && tar -xJf .deps/cutlass.tar.xz -C .deps
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export IOSIM_CONFIG_DIR="$PWD/configs" IOSIM_SCENARIO_DIR="$PWD/scenarios" PATH="/usr/local/cuda/bin:$PATH"
export CMAKE_PREFIX_PATH="$PWD/.deps/usr/lib/x86_64-linux-gnu/cmake:$PWD/.deps/usr"  # an environment list: colons
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in *H100*) cfg=h100 ;; *) cfg=h200 ;; esac
finish() { cp results/gpu-2026-12-06/run9.sh "$res/"; tar -czf "${OUT:-/tmp/out}/run9-$cfg.tar.gz" -C "$res" .; }
trap finish EXIT
t0=$SECONDS
stamp() { echo "$1: exit $2 at $((SECONDS - t0)) s" | tee -a "$res/stamps.txt"; }
left() { echo $((440 - SECONDS + t0)); }
{ date -u; echo "GPU: $gpu (config $cfg.yaml)"; nvidia-smi; nvcc --version | tail -2; } >"$res/environment.txt" 2>&1
rm -f "$build/CMakeCache.txt"
tests=(kernels masked decode window_paged window_bwd window_decode flash3_backend profiler)
targets="iosim flash3_check"; for t in "${tests[@]}"; do targets+=" gpu_test_$t"; done
timeout 240 bash -c "cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DIOSIM_STATIC_DEPS=ON -DIOSIM_BUILD_BENCH=OFF \
    -DIOSIM_BUILD_TESTS=ON -DIOSIM_NOTEBOOK_TESTS=OFF -DIOSIM_PYTHON=OFF -DIOSIM_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    && cmake --build $build -j$(nproc) --target $targets" >"$res/build.log" 2>&1
stamp build $?
tail -3 "$res/build.log"
for t in "${tests[@]}"; do
  if [ ! -x "$build/tests/gpu/gpu_test_$t" ] || [ "$(left)" -le 60 ]; then
    echo "gpu_test_$t: not run (not built, or no time left)" | tee -a "$res/stamps.txt"; continue
  fi
  timeout 60 "$build/tests/gpu/gpu_test_$t" >"$res/gpu-test-$t.txt" 2>&1
  stamp "gpu_test_$t" $?
done
for mode in correctness correctness-bwd; do
  f3=$(find "$build" -name flash3_check -type f -perm -u+x | head -1)
  [ -n "$f3" ] || { echo "flash3_check: not built" | tee -a "$res/stamps.txt"; break; }
  timeout 60 "$f3" "$mode" >"$res/flash3-check-$mode.txt" 2>&1
  stamp "flash3_check $mode" $?
done
validate() {
  local name=$1; shift
  if [ "$(left)" -le 20 ]; then echo "validate $name: no time left" | tee -a "$res/stamps.txt"; return; fi
  timeout 60 "$build/iosim" validate --config "$cfg.yaml" --out "$res" --runs 5 --warmup 2 "$@" \
    2>"$res/validate-$name-progress.txt" >/dev/null
  stamp "validate $name" $?
}
validate quick --quick
validate paged-prefill --schedule flash2 --pass fwd --shape 1,16,4096,64 --causal --page-size 64 --page-order random
validate paged-decode --schedule flashdecode --shape 2,32,1,64 --n-kv 16384 --page-size 16 --page-order random
validate naive-window --schedule naive --shape 1,16,4096,64 --causal --window 256
for args in "--schedule flash2 --pass fwd --batch 1 --heads 4 --kv-heads 2 --n 333 --causal --page-size 16 --page-order random" \
            "--schedule flashdecode --batch 2 --heads 8 --kv-heads 2 --n 1 --n-kv 3001 --page-size 64 --page-order random" \
            "--schedule flash2 --pass bwd --batch 1 --heads 4 --kv-heads 2 --n 333 --causal --window 97" \
            "--schedule naive --pass bwd --batch 1 --heads 4 --kv-heads 2 --n 333 --causal --window 97"; do
  if [ "$(left)" -le 15 ]; then echo "memcheck: no time left" | tee -a "$res/stamps.txt"; break; fi
  # shellcheck disable=SC2086  # $args is a list of flags, split on purpose
  timeout 60 compute-sanitizer --tool memcheck --error-exitcode 3 "$build/iosim" measure --config "$cfg.yaml" --d 64 \
    --no-counters --runs 1 --warmup 0 $args >>"$res/sanitizer-memcheck.log" 2>&1
  stamp "memcheck ${args// /_}" $?
done
