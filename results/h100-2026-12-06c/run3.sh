#!/usr/bin/env bash
# The third call of the day, on a lent H100 or H200 (the device tool), from the repository root, with
# .deps/usr carried (scripts/vendor-deps); everything lands in $OUT/run3-<gpu>.tar.gz. About 9 minutes:
#   1. a build of iosim with the CUDA backend (lean menu: flash3's fp16 d = 128 forward and backward), in
#      the background at low priority while the GPU runs Triton;
#   2. the project's Triton kernels over their whole tile menu at the sweep's five shapes, forward and
#      backward (scripts/triton-sweep.py);
#   3. iosim validate --schedule flash3 (forward and backward, validate's shapes) with the shipped config.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
res=/tmp/run3-res build=build-gpu
mkdir -p "${OUT:-/tmp/out}" "$res"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export IOSIM_CONFIG_DIR="$PWD/configs" IOSIM_SCENARIO_DIR="$PWD/scenarios" PYTHONUNBUFFERED=1
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in *H100*) cfg=h100 ;; *) cfg=h200 ;; esac
finish() { cp results/gpu-2026-12-06/run3.sh "$res/"; tar -czf "${OUT:-/tmp/out}/run3-$cfg.tar.gz" -C "$res" .; }
trap finish EXIT
t0=$SECONDS
stamp() { echo "$1: exit $2 at $((SECONDS - t0)) s"; }
{ date -u; echo "GPU: $gpu (config $cfg.yaml)"; git rev-parse HEAD 2>/dev/null; nvidia-smi; nproc
  python3 -c 'import torch, triton; print("torch", torch.__version__, torch.version.cuda, "triton", triton.__version__)'; } \
  >"$res/environment.txt" 2>&1
( nice -n 10 cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DIOSIM_STATIC_DEPS=ON -DIOSIM_BUILD_BENCH=OFF \
    -DIOSIM_BUILD_TESTS=OFF -DIOSIM_NOTEBOOK_TESTS=OFF -DIOSIM_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_PREFIX_PATH="$PWD/.deps/usr/lib/x86_64-linux-gnu/cmake;$PWD/.deps/usr" &&
  nice -n 10 cmake --build "$build" -j"$(nproc)" --target iosim ) >"$res/build.log" 2>&1 &
build_pid=$!
timeout 360 python3 scripts/triton-sweep.py --budget 330 --prepare-share 0.45 --reps 5 --out "$res/triton-sweep.json" \
  >"$res/triton-sweep.log" 2>&1
stamp "triton sweep" $?
wait "$build_pid"
stamp build $?
left=$((535 - SECONDS + t0))
if [ "$left" -gt 20 ]; then
  timeout "$left" "$build/iosim" validate --config "$cfg.yaml" --schedule flash3 --out "$res" \
    2>"$res/validate-flash3-progress.txt" >/dev/null
  stamp "validate flash3" $?
fi
tail -8 "$res/triton-sweep.log"; tail -3 "$res/validate-flash3-progress.txt" 2>/dev/null
