#!/usr/bin/env bash
# The fourteenth call of the day (the device tool; asks for nvidia-h200, which may give an H100), carrying
# .deps/usr.tar.gz and .deps/cutlass.tar.xz. On an H200: first the project's Triton kernels over their
# whole menu at the sweep's five shapes (scripts/triton-sweep.py, as run3.sh did on the H100) for 240 s,
# then run13.sh (every GPU test after flash3 joined the kernel menu; flash3 paged held-out shapes) in
# 270 s. On an H100: run13.sh alone. Everything lands in $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in
  *H200*)
    mkdir -p /tmp/run14-res
    export PYTHONUNBUFFERED=1
    { date -u; echo "GPU: $gpu"; nvidia-smi; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } \
      >/tmp/run14-res/environment.txt 2>&1
    timeout 250 python3 scripts/triton-sweep.py --budget 240 --prepare-share 0.45 --reps 5 \
      --out /tmp/run14-res/triton-sweep.json >/tmp/run14-res/triton-sweep.log 2>&1
    echo "triton sweep: exit $?" | tee -a /tmp/run14-res/stamps.txt
    cp results/gpu-2026-12-06/run14.sh /tmp/run14-res/
    tar -czf "${OUT:-/tmp/out}/run14-triton-h200.tar.gz" -C /tmp/run14-res .
    RUN13_BUDGET=270 bash results/gpu-2026-12-06/run13.sh ;;
  *) echo "run14: $gpu is not an H200: no Triton sweep"
     bash results/gpu-2026-12-06/run13.sh ;;
esac
