#!/usr/bin/env bash
# CPU A/B of the round skip: the same binary, skip on and off alternating, user seconds and peak KiB.
# usage: ab.sh IOSIM OUTDIR [REPS]
set -euo pipefail
iosim=$1 out=$2 reps=${3:-1}
mkdir -p "$out"
args_of() {
  case $1 in
    h32) echo "-c h200 --heads 32 --n 131072 --d 128 --causal --schedule flash2 --pass fwd --predict -f json" ;;
    gqa8) echo "-c h200 --heads 32 --kv-heads 8 --n 131072 --d 128 --causal --schedule flash2 --pass fwdbwd --predict -f json" ;;
    tiles) echo "tiles -c h200 --heads 32 --kv-heads 8 --n 131072 --d 128 --causal -f json" ;;
  esac
}
for rep in $(seq "$reps"); do
  for name in h32 gqa8 tiles; do
    for mode in on off; do
      flag=--l2-skip-rounds; [ "$mode" = off ] && flag=--no-l2-skip-rounds
      # shellcheck disable=SC2046
      /usr/bin/time -f '%U %M' -o "$out/$name-$mode-$rep.time" "$iosim" $(args_of "$name") "$flag" > "$out/$name-$mode-$rep.json"
      echo "$name $mode $rep $(cat "$out/$name-$mode-$rep.time") load $(cut -d' ' -f1 /proc/loadavg) $(date -u +%H:%M:%S)"
    done
  done
done
