#!/bin/sh
# The lab's problems (flash2 forward, cold, LRU): CONFIG N D HEADS KV_HEADS CAUSAL lines on stdin (all of
# them: problems.txt), one after the other, appended to OUTPUT.
# usage: run.sh L2_ANALYTIC_BINARY OUTPUT < problems.txt
set -e
bin=$1
out=$2
dir=$(dirname "$0")
while read -r cfg n d h kv c; do
  echo "== $cfg $n $d $h $kv $c $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)"
  case $cfg in h200-l2-4mib) y=$dir/$cfg.yaml ;; *) y=configs/$cfg.yaml ;; esac
  nice "$bin" "$y" "$n" "$d" "$h" "$kv" "$c"
done >> "$out" 2>&1
