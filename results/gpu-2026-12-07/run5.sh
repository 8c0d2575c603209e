#!/usr/bin/env bash
# A device call of the fourth session of 2026-12-07, from the repository root, carrying .deps/usr.tar.gz
# and .deps/cutlass.tar.xz. Under 9 minutes, three archives in $OUT at most:
#   - on an H200 only: the project's Triton kernels over their whole menu at the sweep's five shapes,
#     forward and backward (scripts/triton-sweep.py, 250 s), the sweep issue 32 still lacks;
#   - on either: run13.sh (every GPU test of the lean build, flash3's correctness, validate --quick), for
#     the kernels whose contiguous K/V path no longer pays for paging;
#   - on an H100 only: the L2 capacity probe with the shared readers' stagger held and free
#     (results/l2-share-2026-12-07/run, under 4 minutes).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
out=${OUT:-/tmp/out}
mkdir -p "$out"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in
  *H200*)
    res=/tmp/triton-res
    mkdir -p "$res"
    export PYTHONUNBUFFERED=1
    { date -u; echo "GPU: $gpu"; nvidia-smi; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } \
      >"$res/environment.txt" 2>&1
    timeout 265 python3 scripts/triton-sweep.py --budget 250 --prepare-share 0.4 --reps 5 \
      --out "$res/triton-sweep.json" >"$res/triton-sweep.log" 2>&1
    echo "triton sweep: exit $?" | tee -a "$res/stamps.txt"
    tar -czf "$out/triton-h200.tar.gz" -C "$res" .
    RUN13_BUDGET=240 bash results/gpu-2026-12-06/run13.sh ;;
  *)
    RUN13_BUDGET=240 bash results/gpu-2026-12-06/run13.sh
    mkdir -p /tmp/l2ls
    { date -u; echo "GPU: $gpu"; } >/tmp/l2ls/environment.txt
    OUT=/tmp/l2ls timeout 240 bash results/l2-share-2026-12-07/run >/tmp/l2ls/run.log 2>&1
    echo "l2 lockstep: exit $?" | tee -a /tmp/l2ls/run.log
    tar -czf "$out/l2-lockstep.tar.gz" -C /tmp/l2ls . ;;
esac
cp "$0" "$out/"
