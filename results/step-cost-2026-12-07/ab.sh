#!/bin/bash
# ab.sh ROUNDS: main's and the branch's iosim alternately, whole-process user and system CPU
# seconds (/usr/bin/time) on the n 65536 causal GQA forward (F) and the naive (N) request; appends
# to $OUT/ab.out (/tmp without OUT).
F=(-c /work/main/configs/h200.yaml --heads 32 --kv-heads 8 --n 65536 --d 128 --causal --schedule flash2 --pass fwd --predict -f json)
N=(-c /work/main/configs/h200.yaml --heads 16 --n 32768 --d 64 --schedule naive --predict -f json)
# run NAME ARGS...: the request once with each build, main first.
run() {
  local req=$1 who
  shift
  for who in main wt-stepcost; do
    /usr/bin/time -f "$req $who round $r user %U sys %S wall %e" "/work/$who/build/iosim" "$@" > /dev/null 2>> "${OUT:-/tmp}/ab.out"
  done
}
for r in $(seq "$1"); do
  run F "${F[@]}"
  run N "${N[@]}"
done
