#!/usr/bin/env bash
# The second call of the day, on a lent H100 or H200 (the device tool), from the repository root: the
# project's Triton kernels over their tile menu (scripts/triton-sweep.py), alone on the GPU, with the
# environment; everything lands in $OUT/triton-<gpu>.tar.gz. About 8 minutes.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
res=/tmp/triton-res
mkdir -p "${OUT:-/tmp/out}" "$res"
export PYTHONUNBUFFERED=1
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in *H100*) cfg=h100 ;; *) cfg=h200 ;; esac
finish() { cp results/gpu-2026-12-06/triton.sh "$res/"; tar -czf "${OUT:-/tmp/out}/triton-$cfg.tar.gz" -C "$res" .; }
trap finish EXIT
{ date -u; echo "GPU: $gpu"; nvidia-smi; nproc
  python3 -c 'import torch, triton; print("torch", torch.__version__, torch.version.cuda, "triton", triton.__version__)'; } \
  >"$res/environment.txt" 2>&1
timeout 500 python3 scripts/triton-sweep.py --budget 470 --reps 7 --out "$res/triton-sweep.json" >"$res/triton-sweep.log" 2>&1
echo "triton sweep: exit $?"
tail -8 "$res/triton-sweep.log"
