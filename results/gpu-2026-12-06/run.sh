#!/usr/bin/env bash
# One call on a lent H100 or H200 (the device tool), from the repository root; everything lands in
# $OUT/<gpu>.tar.gz (the tool brings back at most 8 files). In order, within about 9 minutes:
#   1. the environment; a build of iosim with the CUDA backend from .deps/ (scripts/vendor-deps) starts in
#      the background, at low priority, while the GPU runs PyTorch:
#   2. scripts/torch-kernels-bench.py: PyTorch's eager kernels alone (the eager schedule's kernel_rates)
#   3. scripts/sdpa-bench.py --sweep: SDPA's flash backend and the plain math path, fwd and fwd+bwd, at the
#      sweep's shapes that fill the GPU, then at grids of one to four heads
#   4. iosim calibrate against the config of this GPU (h100.yaml or h200.yaml), written into a copy of it
#   5. scripts/triton-sweep.py: the project's Triton kernels over their tile menu
#   6. iosim validate --quick with the shipped config, in the time left (re-predicted later with others)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
res=/tmp/gpu-res build=build-gpu
mkdir -p "${OUT:-/tmp/out}" "$res"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export IOSIM_CONFIG_DIR="$PWD/configs" IOSIM_SCENARIO_DIR="$PWD/scenarios" PYTHONUNBUFFERED=1
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in *H100*) cfg=h100 ;; *H200*) cfg=h200 ;; *) cfg=h200 ;; esac
finish() { cp results/gpu-2026-12-06/run.sh "$res/"; tar -czf "${OUT:-/tmp/out}/$cfg.tar.gz" -C "$res" .; }
trap finish EXIT
t0=$SECONDS
stamp() { echo "$1: exit $2 at $((SECONDS - t0)) s"; }
{ date -u; echo "GPU: $gpu (config $cfg.yaml)"; nvidia-smi; nvcc --version | tail -2
  python3 -c 'import torch, triton; print("torch", torch.__version__, torch.version.cuda, "triton", triton.__version__)'; } \
  >"$res/environment.txt" 2>&1
( nice -n 10 cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DIOSIM_STATIC_DEPS=ON -DIOSIM_BUILD_BENCH=OFF \
    -DIOSIM_BUILD_TESTS=OFF -DIOSIM_NOTEBOOK_TESTS=OFF -DIOSIM_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_PREFIX_PATH="$PWD/.deps/usr/lib/x86_64-linux-gnu/cmake;$PWD/.deps/usr" &&
  nice -n 10 cmake --build "$build" -j"$(nproc)" --target iosim ) >"$res/build.log" 2>&1 &
build_pid=$!
timeout 90 python3 scripts/torch-kernels-bench.py --out "$res/torch-kernels.json" >"$res/torch-kernels.log" 2>&1
stamp "torch kernels" $?
timeout 150 python3 scripts/sdpa-bench.py --sweep --max-seconds 120 --out "$res/sdpa-sweep.json" >"$res/sdpa-sweep.log" 2>&1
stamp "sdpa sweep" $?
timeout 60 python3 scripts/sdpa-bench.py --sweep --max-seconds 45 --out "$res/sdpa-small-grids.json" \
  --shapes 1,1,8192,64 1,1,16384,128 1,2,4096,64 1,4,8192,128 2,2,2048,64 1,1,32768,64 >"$res/sdpa-small.log" 2>&1
stamp "sdpa small grids" $?
wait "$build_pid"
stamp build $?
cp "configs/$cfg.yaml" "$res/$cfg-calibrated.yaml"
timeout 150 "$build/iosim" calibrate --config "$cfg.yaml" --write "$res/$cfg-calibrated.yaml" >"$res/calibrate.txt" 2>&1
stamp calibrate $?
left=$((470 - SECONDS + t0)); [ "$left" -gt 240 ] && left=240
if [ "$left" -gt 30 ]; then
  timeout $((left + 20)) python3 scripts/triton-sweep.py --budget "$left" --out "$res/triton-sweep.json" >"$res/triton-sweep.log" 2>&1
  stamp "triton sweep" $?
fi
left=$((530 - SECONDS + t0))
if [ "$left" -gt 20 ]; then
  timeout "$left" "$build/iosim" validate --config "$cfg.yaml" --quick --out "$res" 2>"$res/validate-progress.txt" >/dev/null
  stamp "validate --quick" $?
fi
tail -3 "$res/calibrate.txt"; tail -2 "$res/sdpa-sweep.log" "$res/triton-sweep.log" "$res/validate-progress.txt" 2>/dev/null
