#!/usr/bin/env bash
# The fifth call of the day (the device tool), from the repository root; no build. About 5 minutes:
#   1. SDPA timed as the sum of each call's kernel durations (scripts/sdpa-bench.py --kernel-times, which
#      now profiles each run alone) at the small grids and the sweep's shapes: the math path's kernel sums
#      that results/h100-2026-12-06b got wrong;
#   2. PyTorch's FlashAttention-2 under ncu with the L2's requests split by kind (scripts/gpu fa2-writes) at
#      shapes beside the two of run4.sh, and causal.
# Everything is packed into $OUT/run5-<gpu>.tar.gz.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
res=/tmp/run5-res
mkdir -p "${OUT:-/tmp/out}" "$res"
export PYTHONUNBUFFERED=1
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in *H100*) cfg=h100 ;; *) cfg=h200 ;; esac
finish() { cp results/gpu-2026-12-06/run5.sh "$res/"; tar -czf "${OUT:-/tmp/out}/run5-$cfg.tar.gz" -C "$res" .; }
trap finish EXIT
t0=$SECONDS
stamp() { echo "$1: exit $2 at $((SECONDS - t0)) s" | tee -a "$res/stamps.txt"; }
{ date -u; echo "GPU: $gpu"; nvidia-smi; python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda)'; } \
  >"$res/environment.txt" 2>&1
timeout 70 python3 scripts/sdpa-bench.py --sweep --kernel-times --max-seconds 55 --out "$res/sdpa-small-grids-kernels.json" \
  --shapes 1,1,8192,64 1,1,16384,128 1,2,4096,64 1,4,8192,128 2,2,2048,64 1,1,32768,64 >"$res/sdpa-small-kernels.log" 2>&1
stamp "sdpa small grids, kernel times" $?
timeout 130 python3 scripts/sdpa-bench.py --sweep --kernel-times --max-seconds 110 --out "$res/sdpa-sweep-kernels.json" \
  >"$res/sdpa-sweep-kernels.log" 2>&1
stamp "sdpa sweep, kernel times" $?
OUT="$res/fa2-writes" SHAPES="4,16,2048,128 2,16,4096,64 1,2,4096,64 8,16,1024,64" timeout 80 scripts/gpu fa2-writes \
  >"$res/fa2-writes.log" 2>&1
stamp "fa2-writes" $?
OUT="$res/fa2-writes-causal" CAUSAL=1 SHAPES="2,16,2048,64 4,16,2048,128" timeout 45 scripts/gpu fa2-writes \
  >"$res/fa2-writes-causal.log" 2>&1
stamp "fa2-writes causal" $?
tail -3 "$res/sdpa-small-kernels.log" "$res/sdpa-sweep-kernels.log"; head -40 "$res/fa2-writes/summary.txt" 2>/dev/null
