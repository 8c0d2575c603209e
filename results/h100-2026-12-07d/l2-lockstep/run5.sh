#!/usr/bin/env bash
# A device call of the fourth session of 2026-12-07, from the repository root, carrying .deps/usr.tar.gz
# and .deps/cutlass.tar.xz. Under 9 minutes, two archives in $OUT:
#   - on an H200 only, first: the project's Triton kernels over their whole menu at the sweep's five
#     shapes, forward and backward (scripts/triton-sweep.py, 200 s), the sweep issue 32 still lacks;
#   - on either: results/contig-2026-12-07/run.sh (the lean build with flash2's forward compiled for
#     contiguous and paged K/V apart: its GPU tests, validate --quick, flash2's forward at n 1024, the
#     compiled table's flash2 rows). Run this on main with results/contig-2026-12-07/contig-on-main.patch applied
#     (`git apply --exclude=tests/golden/grid.sha256`; then re-record the golden grid): main reverted
#     contig, so as it is it would time main's kernels;
#   - on an H100 only, last: the L2 capacity probe with the shared readers' stagger held and free
#     (results/l2-share-2026-12-07/run, 170 s at most).
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
    timeout 215 python3 scripts/triton-sweep.py --budget 200 --prepare-share 0.4 --reps 5 \
      --out "$res/triton-sweep.json" >"$res/triton-sweep.log" 2>&1
    echo "triton sweep: exit $?" | tee -a "$res/stamps.txt"
    cp "$0" "$res/"
    tar -czf "$out/triton-h200.tar.gz" -C "$res" .
    CONTIG_BUDGET=300 bash results/contig-2026-12-07/run.sh ;;
  *)
    CONTIG_BUDGET=330 bash results/contig-2026-12-07/run.sh
    mkdir -p /tmp/l2ls
    { date -u; echo "GPU: $gpu"; } >/tmp/l2ls/environment.txt
    OUT=/tmp/l2ls timeout 170 bash results/l2-share-2026-12-07/run >/tmp/l2ls/run.log 2>&1
    echo "l2 lockstep: exit $?" | tee -a /tmp/l2ls/run.log
    cp "$0" /tmp/l2ls/
    tar -czf "$out/l2-lockstep.tar.gz" -C /tmp/l2ls . ;;
esac
