#!/bin/sh
# A/B CPU time of whole processes, one build: --no-l2-skip-rounds (the baseline: main's code path with
# skips off) against the default (skips on), on the two requests, each run twice, alternating.
# Usage: ab.sh IOSIM OUT_DIR
set -eu
iosim=$1; out=$2
run() {  # name, then the request's flags
  name=$1; shift
  for i in 1 2; do
    /usr/bin/time -f "%U %S %e" -o "$out/$name-off-$i.time" "$iosim" "$@" --no-l2-skip-rounds > "$out/$name-off-$i.txt"
    /usr/bin/time -f "%U %S %e" -o "$out/$name-on-$i.time" "$iosim" "$@" > "$out/$name-on-$i.txt"
  done
}
run gqa -c h200 --heads 32 --kv-heads 8 --n 131072 --d 128 --causal --pass fwdbwd --schedule flash2 --predict
run tiles tiles -c h200 --heads 32 --n 32768 --d 128 --causal
