#!/usr/bin/env bash
# One device call (run from the repository root, carrying .deps/cutlass.tar.xz and .deps/usr.tar.gz):
# Nsight Compute on iosim's flash3 forward and backward main kernel (fp16, d = 128, the lean menu) at
# two of validate's shapes: instructions executed, warp stalls, SM cycles and the SM clock under the
# kernel (sm__cycles_elapsed.avg.per_second), as scripts/gpu flash3-mix counts the forward.
set -uo pipefail
cd "${IOSIM_ROOT:-$(dirname "$0")/../..}" || exit 2
out=${OUT:-/tmp/out} work=/tmp/f3ncu build=build-fa3
budget=540 start=$SECONDS tag=f3ncu
mkdir -p "$out" "$work"
tar -xJf .deps/cutlass.tar.xz -C .deps && tar -xzf .deps/usr.tar.gz -C .deps
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export PATH="/usr/local/cuda/bin:$PATH"
source scripts/lib/device-parts.sh
finish() { cp "$0" "$work/"; tar -czf "$out/f3ncu.tar.gz" -C "$work" .; }
trap finish EXIT
{ date -u; nvidia-smi; } >"$work/environment.txt" 2>&1
part build 300 build.txt scripts/gpu check --build-only --build-dir "$build" --out "$work/build" \
  --cmake-arg -DCMAKE_CUDA_ARCHITECTURES=90 --target flash3_check --build-timeout 290
check=$build/flash3_check
"$check" list >"$work/kernels.txt" 2>&1 || true
ncu --query-metrics --chip gh100 >"$work/ncu-query-metrics.txt" 2>&1 || true
mapfile -t counters < <(grep -oE '^(smsp__warps_issue_stalled_[a-z0-9_]+|smsp__inst_executed_pipe_[a-z0-9_]+)' \
  "$work/ncu-query-metrics.txt" | grep -v '_not_issued$' | sort -u)
metrics="smsp__inst_executed.sum,smsp__issue_active.sum,smsp__warps_active.sum,smsp__cycles_active.sum"
metrics+=",sm__cycles_elapsed.max,sm__cycles_elapsed.avg.per_second,gpu__time_duration.sum,launch__grid_size"
for m in "${counters[@]}"; do metrics+=",$m.sum"; done
common=(--clock-control none --kernel-name-base demangled --launch-skip 1 --launch-count 1 --csv --page raw)
for s in "1,33,1024,128" "1,8,4096,128"; do
  IFS=, read -r b h n d <<<"$s"
  part "fwd $s" 60 "ncu-fwd-$s.csv" ncu "${common[@]}" -k regex:fwd_kernel --metrics "$metrics" \
    "$check" bench --batch "$b" --heads "$h" --n "$n" --d "$d" --dtype fp16 --warmup 1 --runs 1
  part "bwd $s" 60 "ncu-bwd-$s.csv" ncu "${common[@]}" -k regex:'::bwd_kernel<' --metrics "$metrics" \
    "$check" bench-bwd --batch "$b" --heads "$h" --n "$n" --d "$d" --dtype fp16 --warmup 1 --runs 1
  part "bench fwd $s" 30 "bench-fwd-$s.txt" "$check" bench --batch "$b" --heads "$h" --n "$n" --d "$d" --dtype fp16 --warmup 3 --runs 10
  part "bench bwd $s" 30 "bench-bwd-$s.txt" "$check" bench-bwd --batch "$b" --heads "$h" --n "$n" --d "$d" --dtype fp16 --warmup 3 --runs 10
done
printf '%s\n' "${parts[@]}" | tee "$work/summary.txt"
