#!/bin/sh
# Part 2 (round skipping) against exact, flash2 forward, cold, LRU: lines CONFIG N D HEADS KV_HEADS CAUSAL
# [W TOL] on stdin (problems.txt), one after the other, appended to OUTPUT. CONFIG h200-l2-4mib is
# ../l2-analytic-2026-12-07/h200-l2-4mib.yaml (a 4 MiB L2), the others configs/CONFIG.yaml.
# usage: run.sh L2_ANALYTIC_BINARY OUTPUT < problems.txt
set -e
bin=$1
out=$2
dir=$(dirname "$0")
while read -r cfg n d h kv c w tol; do
  echo "== $cfg $n $d $h $kv $c ${w:-8} ${tol:-0.01} $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)"
  case $cfg in h200-l2-4mib) y=$dir/../l2-analytic-2026-12-07/$cfg.yaml ;; *) y=configs/$cfg.yaml ;; esac
  nice "$bin" "$y" "$n" "$d" "$h" "$kv" "$c" window "${w:-8}" "${tol:-0.01}"
done >> "$out" 2>&1
