#!/usr/bin/env bash
# The first device call of 2026-12-07, from the repository root, carrying .deps/usr.tar.gz and
# .deps/cutlass.tar.xz. Under 9 minutes, everything in $OUT (three archives at most):
#   - on an H200: the project's Triton kernels over their whole menu at the sweep's five shapes
#     (scripts/triton-sweep.py) for 170 s, then run13.sh in 240 s;
#   - on an H100: run13.sh in 400 s (every GPU test after flash3 joined the kernel menu; flash3's
#     correctness, forward and backward; flash3 paged at held-out shapes; validate --quick);
#   - then, on either, two L2 probes, about a minute each: the merge window (scripts/lab/l2-merge-window)
#     and the usable capacity around the L2's size (scripts/lab/l2-capacity).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
out=${OUT:-/tmp/out}
mkdir -p "$out"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in
  *H200*)
    mkdir -p /tmp/triton-res
    export PYTHONUNBUFFERED=1
    { date -u; echo "GPU: $gpu"; nvidia-smi; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } \
      >/tmp/triton-res/environment.txt 2>&1
    timeout 180 python3 scripts/triton-sweep.py --budget 170 --prepare-share 0.45 --reps 5 \
      --out /tmp/triton-res/triton-sweep.json >/tmp/triton-res/triton-sweep.log 2>&1
    echo "triton sweep: exit $?" | tee -a /tmp/triton-res/stamps.txt
    tar -czf "$out/triton-h200.tar.gz" -C /tmp/triton-res .
    RUN13_BUDGET=240 bash results/gpu-2026-12-06/run13.sh ;;
  *) RUN13_BUDGET=400 bash results/gpu-2026-12-06/run13.sh ;;
esac
mkdir -p /tmp/l2mw
{ date -u; echo "GPU: $gpu"; } >/tmp/l2mw/environment.txt
OUT=/tmp/l2mw timeout 75 scripts/lab/l2-merge-window/run >/tmp/l2mw/merge-window.log 2>&1
echo "l2 merge window: exit $?" | tee -a /tmp/l2mw/merge-window.log
OUT=/tmp/l2mw timeout 75 scripts/lab/l2-capacity/run >/tmp/l2mw/capacity.log 2>&1
echo "l2 capacity: exit $?" | tee -a /tmp/l2mw/capacity.log
cp "$0" /tmp/l2mw/
tar -czf "$out/l2-probes.tar.gz" -C /tmp/l2mw .
