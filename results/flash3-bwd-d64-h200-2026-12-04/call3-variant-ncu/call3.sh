#!/usr/bin/env bash
# Call 3 (fa3d64): the B_r = 64 variant at d = 64 (x/) against the committed kernel (new/), and ncu of
# the main kernel, old (a35101f = the 2026-12-02 kernel b675c07) / new / x, d64 fp16 1x16x8192.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/call3-out}
mkdir -p "$out"
export PATH="/usr/local/cuda/bin:$PATH"
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader; cat "$here/COMMITS"; } >"$out/environment.txt" 2>&1
timeout 150 "$here/x/flash3_check" correctness-bwd >"$out/correctness-x.log" 2>&1; echo "correctness-x rc=$?" >>"$out/correctness-x.log"
: >"$out/bench-var.log"
for rep in 1 2; do
  for t in fp16 bf16; do
    for c in full causal; do
      for v in new x; do
        args=(bench-bwd --batch 1 --heads 16 --n 8192 --d 64 --dtype "$t" --runs 21)
        [[ $c == causal ]] && args+=(--causal)
        echo -n "$v rep$rep: " >>"$out/bench-var.log"
        timeout 30 "$here/$v/flash3_check" "${args[@]}" >>"$out/bench-var.log" 2>&1
      done
    done
  done
done
m=gpu__time_duration.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_gmma.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum,smsp__inst_executed.sum,smsp__inst_executed_op_shared_st.sum,smsp__inst_executed_op_shared_ld.sum,lts__t_sectors_op_red.sum,lts__t_sectors_op_atom.sum,dram__bytes_read.sum,dram__bytes_write.sum
: >"$out/ncu.log"
for v in old new x; do
  echo "== $v bwd_kernel fp16 d64 1 x 16 x 8192 full" >>"$out/ncu.log"
  timeout 150 ncu --clock-control none -k bwd_kernel --launch-skip 2 --launch-count 1 --metrics "$m" --section WarpStateStats \
    "$here/$v/flash3_check" bench-bwd --batch 1 --heads 16 --n 8192 --d 64 --dtype fp16 --warmup 1 --runs 1 >>"$out/ncu.log" 2>&1
  echo "ncu $v rc=$?" >>"$out/ncu.log"
done
fn=_ZN5iosim3gpu6flash36detail10bwd_kernelINS2_9BwdTraitsIN7cutlass6half_tELi64ELi128ELi128ELi2EEEEEvNT_6ParamsE
cuobjdump -sass "$here/new/flash3_check" 2>&1 | awk -v f="$fn" 'index($0, "Function : ") { p = index($0, f) > 0 } p' >"$out/sass-new-d64fp16.txt"
echo "== summary"
echo "SASS new d64 fp16: $(wc -l <"$out/sass-new-d64fp16.txt") lines, STL $(grep -c 'STL' "$out/sass-new-d64fp16.txt"), LDL $(grep -c 'LDL' "$out/sass-new-d64fp16.txt")"
grep -E "passed|FAIL|rc=" "$out/correctness-x.log"
grep -E "bench-bwd" "$out/bench-var.log" | sed -E 's/bench-bwd flash3 //; s/  \(.*//; s/batch 1 heads 16 n 8192 //'
grep -E "^== |rc=|gpu__time|gmma_cycles|gmma.sum|bank_conflicts|local_op|inst_executed.sum|op_shared|op_red|Warp Cycles Per Issued|Stall|stall" "$out/ncu.log" | head -90
