#!/bin/sh
# A/B CPU time of whole processes: a baseline build (main's, or this branch's without the flag) and
# this branch's with --l2-skip-rounds, on the two requests.
# Usage: ab.sh BASE_IOSIM BRANCH_IOSIM OUT_DIR [BASE_FLAG]
set -eu
base=$1; mine=$2; out=$3; base_flag=${4:-}
run() {  # name, then the request's flags
  name=$1; shift
  # shellcheck disable=SC2086
  /usr/bin/time -f "%U %S %e" -o "$out/$name-base.time" "$base" "$@" $base_flag > "$out/$name-base.txt"
  /usr/bin/time -f "%U %S %e" -o "$out/$name-skip.time" "$mine" "$@" --l2-skip-rounds > "$out/$name-skip.txt"
}
run one -c h200 --heads 1 --n 131072 --d 128 --causal --pass fwd --schedule flash2 --predict
run gqa -c h200 --heads 32 --kv-heads 8 --n 131072 --d 128 --causal --pass fwdbwd --schedule flash2 --predict
