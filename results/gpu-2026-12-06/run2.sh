#!/usr/bin/env bash
# The second call of the day, on a lent H100 or H200 (the device tool), from the repository root; everything
# lands in $OUT/run2-<gpu>.tar.gz. About 8 minutes:
#   1. SDPA at grids of one to four heads, and at the sweep's shapes, timed as the sum of each call's kernel
#      durations (scripts/sdpa-bench.py --kernel-times), beside CUDA events around the call;
#   2. the project's Triton kernels over their tile menu (scripts/triton-sweep.py), in the time left.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
res=/tmp/run2-res
mkdir -p "${OUT:-/tmp/out}" "$res"
export PYTHONUNBUFFERED=1
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in *H100*) cfg=h100 ;; *) cfg=h200 ;; esac
finish() { cp results/gpu-2026-12-06/run2.sh "$res/"; tar -czf "${OUT:-/tmp/out}/run2-$cfg.tar.gz" -C "$res" .; }
trap finish EXIT
t0=$SECONDS
stamp() { echo "$1: exit $2 at $((SECONDS - t0)) s"; }
{ date -u; echo "GPU: $gpu"; nvidia-smi; nproc
  python3 -c 'import torch, triton; print("torch", torch.__version__, torch.version.cuda, "triton", triton.__version__)'; } \
  >"$res/environment.txt" 2>&1
timeout 60 python3 scripts/sdpa-bench.py --sweep --kernel-times --max-seconds 45 --out "$res/sdpa-small-grids-kernels.json" \
  --shapes 1,1,8192,64 1,1,16384,128 1,2,4096,64 1,4,8192,128 2,2,2048,64 1,1,32768,64 >"$res/sdpa-small-kernels.log" 2>&1
stamp "sdpa small grids, kernel times" $?
timeout 110 python3 scripts/sdpa-bench.py --sweep --kernel-times --max-seconds 90 --out "$res/sdpa-sweep-kernels.json" \
  >"$res/sdpa-sweep-kernels.log" 2>&1
stamp "sdpa sweep, kernel times" $?
left=$((500 - SECONDS + t0))
timeout $((left + 25)) python3 scripts/triton-sweep.py --budget "$left" --reps 5 --out "$res/triton-sweep.json" \
  >"$res/triton-sweep.log" 2>&1
stamp "triton sweep" $?
tail -4 "$res/sdpa-small-kernels.log" "$res/sdpa-sweep-kernels.log"; tail -8 "$res/triton-sweep.log"
