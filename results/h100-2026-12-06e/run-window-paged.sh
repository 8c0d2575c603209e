#!/usr/bin/env bash
# The sliding window and paged K/V on the GPU, on a lent H100 or H200 (the device tool), from the
# repository root, with .deps/usr carried (scripts/vendor-deps); everything lands in
# $OUT/run-window-paged-<gpu>.tar.gz. Under 8 minutes:
#   1. a build of iosim and the GPU tests of the window and pages (lean menu), in the background at low
#      priority while the GPU runs FlexAttention;
#   2. FlexAttention at the same problems (scripts/flex-bench.py): sliding windows, paged decode and
#      prefill, timed cold and warm;
#   3. the GPU test of the window and pages against the double-precision reference
#      (gpu_test_window_paged);
#   4. iosim validate over windows 256/1024/4096 (causal) and the causal and unmasked baselines at
#      n = 4096 and 16384 (flash2 forward), and pages of 16/64/256, shuffled, for decode (flashdecode,
#      flashdecode-heads: batch 2, 32 heads, n = 1, n_kv = 16384) and a causal prefill (flash2 forward,
#      n = 4096), then pages in token order and the unpaged decode (at most 45 s a call);
#   5. where time is left, the decode and causal/grouped GPU tests, which the shared K/V loads also serve.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
res=/tmp/run-window-paged-res build=build-gpu
mkdir -p "${OUT:-/tmp/out}" "$res"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export IOSIM_CONFIG_DIR="$PWD/configs" IOSIM_SCENARIO_DIR="$PWD/scenarios" PYTHONUNBUFFERED=1
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in *H100*) cfg=h100 ;; *) cfg=h200 ;; esac
finish() { cp results/gpu-2026-12-06/run-window-paged.sh "$res/"; tar -czf "${OUT:-/tmp/out}/run-window-paged-$cfg.tar.gz" -C "$res" .; }
trap finish EXIT
t0=$SECONDS
stamp() { echo "$1: exit $2 at $((SECONDS - t0)) s" | tee -a "$res/stamps.txt"; }
left() { echo $((${BUDGET:-450} - SECONDS + t0)); }
{ date -u; echo "GPU: $gpu (config $cfg.yaml)"; git rev-parse HEAD 2>/dev/null; nvidia-smi; nproc
  python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda)'; } >"$res/environment.txt" 2>&1
configure() {  # $1: ON or OFF, the GPU tests with it
  nice -n 10 cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DIOSIM_STATIC_DEPS=ON -DIOSIM_BUILD_BENCH=OFF \
    -DIOSIM_BUILD_TESTS="$1" -DIOSIM_NOTEBOOK_TESTS=OFF -DIOSIM_PYTHON=OFF -DIOSIM_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_PREFIX_PATH="$PWD/.deps/usr/lib/x86_64-linux-gnu/cmake;$PWD/.deps/usr"
}
# iosim first (validate needs it); the GPU tests after, where the tests configure here at all.
# The build stops by 330 s, so that validate keeps some of the budget.
( { configure ON || configure OFF; } &&
  nice -n 10 timeout $((300 - SECONDS + t0)) cmake --build "$build" -j"$(nproc)" --target iosim &&
  { nice -n 10 timeout $((330 - SECONDS + t0)) cmake --build "$build" -j"$(nproc)" \
      --target gpu_test_window_paged gpu_test_masked gpu_test_decode || true; } ) \
  >"$res/build.log" 2>&1 &
build_pid=$!
timeout 200 python3 scripts/flex-bench.py --budget 170 --out "$res/flex-bench.json" >"$res/flex-bench.log" 2>&1
stamp "flex bench" $?
wait "$build_pid"
stamp build $?
tail -5 "$res/build.log"
# One GPU test program, where it was built and time is left ($2 s at most).
gpu_test() {
  if [ ! -x "$build/tests/gpu/gpu_test_$1" ] || [ "$(left)" -le "$2" ]; then
    echo "gpu_test_$1: not run (not built, or no time left)" | tee -a "$res/stamps.txt"; return
  fi
  timeout "$2" "$build/tests/gpu/gpu_test_$1" >"$res/gpu-test-$1.txt" 2>&1
  stamp "gpu_test_$1" $?
}
gpu_test window_paged 90
# One validate call: its flags after the config and output folder; skipped once the time is spent.
validate() {
  local name=$1; shift
  local t; t=$(left)
  if [ "$t" -le 15 ]; then echo "validate $name: no time left" | tee -a "$res/stamps.txt"; return; fi
  [ "$t" -gt 45 ] && t=45
  timeout "$t" "$build/iosim" validate --config "$cfg.yaml" --out "$res" --runs 10 --warmup 3 "$@" \
    2>"$res/validate-$name-progress.txt" >/dev/null
  stamp "validate $name" $?
}
# Window and paged problems interleaved, so that a run cut short by the budget has some of each.
win=(--schedule flash2 --pass fwd --shape "1,16,4096,64" --shape "1,16,16384,64" --causal)
decode=(--schedule flashdecode --schedule flashdecode-heads --shape "2,32,1,64" --n-kv 16384 --page-order random)
prefill=(--schedule flash2 --pass fwd --shape "1,16,4096,64" --causal --page-order random)
validate window256 "${win[@]}" --window 256
validate decode-page16 "${decode[@]}" --page-size 16
validate prefill-page64 "${prefill[@]}" --page-size 64
validate window1024 "${win[@]}" --window 1024
validate decode-page64 "${decode[@]}" --page-size 64
validate window4096 "${win[@]}" --window 4096
validate prefill-page16 "${prefill[@]}" --page-size 16
validate decode-page256 "${decode[@]}" --page-size 256
validate prefill-page256 "${prefill[@]}" --page-size 256
validate causal "${win[@]}"
validate unmasked --schedule flash2 --pass fwd --shape "1,16,4096,64" --shape "1,16,16384,64"
validate decode-page64-contiguous --schedule flashdecode --shape "2,32,1,64" --n-kv 16384 --page-size 64
validate decode-unpaged --schedule flashdecode --shape "2,32,1,64" --n-kv 16384
gpu_test decode 60
gpu_test masked 90
tail -3 "$res"/gpu-test-*.txt "$res"/validate-*-progress.txt 2>/dev/null
