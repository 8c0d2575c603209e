#!/bin/sh
# usage: acc.sh BIN TAG L2 H K
cd /work/wt-gqaheads2
/usr/bin/time -f "%U %S %e %M" "$1" --config results/gqa-heads-2026-12-07/h200-small.yaml --heads "$4" --kv-heads "$5" --n 16384 --d 128 --causal --schedule flash2 --pass fwd --predict -f json --l2 "$3" > "/tmp/gq2/$2-$3-$4.json" 2> "/tmp/gq2/$2-$3-$4.time"
