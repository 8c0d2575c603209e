#!/bin/sh
# A/B CPU time of whole processes: main's build vs this branch's, with and without --l2-skip-rounds.
# Usage: ab.sh MAIN_IOSIM BRANCH_IOSIM OUT_DIR
set -eu
main=$1; mine=$2; out=$3
gqa="-c h200 --heads 32 --kv-heads 8 --n 131072 --d 128 --causal --pass fwdbwd --schedule flash2 --predict"
one="-c h200 --heads 1 --n 131072 --d 128 --causal --pass fwd --schedule flash2 --predict"
for name in gqa one; do
  eval "args=\$$name"
  # shellcheck disable=SC2086
  /usr/bin/time -f "%U %S %e" -o "$out/$name-main.time" "$main" $args > "$out/$name-main.txt"
  # shellcheck disable=SC2086
  /usr/bin/time -f "%U %S %e" -o "$out/$name-skip.time" "$mine" $args --l2-skip-rounds > "$out/$name-skip.txt"
done
