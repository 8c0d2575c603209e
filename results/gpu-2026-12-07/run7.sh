#!/usr/bin/env bash
# A device call of the sixth session of 2026-12-07 (the same set-up as run6.sh: contig patch applied,
# .deps carried). Under 9 minutes, two archives in $OUT:
#   1. run6.sh with 400 s for its sweep and validate runs (contig-data-<cfg>.tar.gz);
#   2. the L2 merge probe (results/l2-merge-2026-12-07/run, 140 s at most; l2-merge.tar.gz).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/l2m
RUN6_BUDGET=400 bash results/gpu-2026-12-07/run6.sh
{ date -u; nvidia-smi --query-gpu=name --format=csv,noheader; } >/tmp/l2m/environment.txt
OUT=/tmp/l2m MERGE_TIMEOUT=130 timeout 140 bash results/l2-merge-2026-12-07/run >/tmp/l2m/run.log 2>&1
echo "l2 merge: exit $?" | tee -a /tmp/l2m/run.log
cp "$0" /tmp/l2m/
tar -czf "$out/l2-merge.tar.gz" -C /tmp/l2m .
