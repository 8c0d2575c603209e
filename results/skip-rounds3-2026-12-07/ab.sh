#!/usr/bin/env bash
# CPU A/B of the round skip: the same binary, skip on and off alternating, user seconds and peak KiB.
# usage: ab.sh IOSIM OUTDIR ON_FLAG OFF_FLAG   (a flag may be "": the default)
set -euo pipefail
iosim=$1 out=$2 on=$3 off=$4
mkdir -p "$out"
args_of() {
  case $1 in
    gqa1) echo "-c h200 --heads 4 --kv-heads 1 --n 131072 --d 128 --causal --schedule flash2 --pass fwd --predict -f json" ;;
    gqa8) echo "-c h200 --heads 32 --kv-heads 8 --n 131072 --d 128 --causal --schedule flash2 --pass fwdbwd --predict -f json" ;;
  esac
}
for rep in 1 2; do
  for name in gqa1 gqa8; do
    for mode in on off; do
      flag=$on; [ "$mode" = off ] && flag=$off
      # shellcheck disable=SC2046,SC2086
      /usr/bin/time -f '%U %M' -o "$out/$name-$mode-$rep.time" "$iosim" $(args_of "$name") $flag > "$out/$name-$mode-$rep.json"
      echo "$name $mode $rep $(cat "$out/$name-$mode-$rep.time") load $(cut -d' ' -f1 /proc/loadavg) $(date -u +%H:%M:%S)"
    done
  done
done
