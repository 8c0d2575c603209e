#!/usr/bin/env bash
# The second device call of 2026-12-07, from the repository root, carrying .deps/usr.tar.gz and
# .deps/cutlass.tar.xz. Under 9 minutes, two archives in $OUT:
#   - f3ncu.tar.gz: results/flash3-time-2026-12-06/ncu-h100.sh (flash3's main kernels under Nsight Compute:
#     instructions, warp stalls, the SM clock; 330 s at most);
#   - lone-block.tar.gz: PyTorch's FlashAttention-2 forward (scripts/sdpa-profile.py) under Nsight Compute
#     with every warp-stall and pipe counter, the same kernel at one block an SM (1 x 1, n 16384, d 128:
#     128 blocks on 132 SMs) and at two (1 x 4, n 8192, d 128: 256 blocks), and at four (1 x 8, n 8192).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
out=${OUT:-/tmp/out}
mkdir -p "$out"
OUT="$out" timeout 340 bash results/flash3-time-2026-12-06/ncu-h100.sh >/tmp/f3ncu.log 2>&1
echo "flash3 ncu: exit $?"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export PATH="/usr/local/cuda/bin:$PATH"
work=/tmp/lone budget=170 start=$SECONDS tag=lone
mkdir -p "$work"
source scripts/lib/device-parts.sh
{ date -u; nvidia-smi; python3 -c "import torch; print(torch.__version__)"; } >"$work/environment.txt" 2>&1
ncu --query-metrics --chip gh100 >"$work/ncu-query-metrics.txt" 2>&1 || true
mapfile -t counters < <(grep -oE '^(smsp__warps_issue_stalled_[a-z0-9_]+|smsp__inst_executed_pipe_[a-z0-9_]+)' \
  "$work/ncu-query-metrics.txt" | grep -v '_not_issued$' | sort -u)
metrics="smsp__inst_executed.sum,smsp__issue_active.sum,smsp__warps_active.sum,smsp__cycles_active.sum"
metrics+=",sm__cycles_elapsed.max,sm__cycles_elapsed.avg.per_second,gpu__time_duration.sum,launch__grid_size"
metrics+=",launch__occupancy_limit_registers,launch__registers_per_thread,sm__warps_active.avg.per_cycle_active"
for m in "${counters[@]}"; do metrics+=",$m.sum"; done
for s in "1,1,16384,128" "1,4,8192,128" "1,8,8192,128"; do
  part "torch fwd $s" 50 "ncu-torch-fwd-$s.csv" ncu --profile-from-start off --clock-control none \
    --kernel-name-base demangled -k regex:flash_fwd --launch-count 1 --csv --page raw --metrics "$metrics" \
    python3 scripts/sdpa-profile.py --shape "$s" --dtype fp16
done
printf '%s\n' "${parts[@]}" | tee "$work/summary.txt"
cp "$0" "$work/"
tar -czf "$out/lone-block.tar.gz" -C "$work" .
