#!/bin/bash
# ident.sh: byte-compares main's and the branch's `iosim ... -f json` on the brief's requests and a
# few more (FIFO, random replacement, fwdbwd); both read the same config file, so the JSON's file
# field matches too. Outputs go to $OUT (/tmp without OUT).
M=/work/main/build/iosim; W=/work/wt-stepcost/build/iosim; O=${OUT:-/tmp}
i=0
while read -r line; do
  i=$((i+1))
  read -r -a args <<< "$line"
  "$M" "${args[@]}" -f json > "$O/j.main.$i" 2>&1; a=$?
  "$W" "${args[@]}" -f json > "$O/j.br.$i" 2>&1; b=$?
  if cmp -s "$O/j.main.$i" "$O/j.br.$i"; then r=IDENTICAL; else r=DIFFER; fi
  echo "$r rc $a/$b bytes $(wc -c < "$O/j.br.$i") : $line"
done <<'LIST'
-c /work/main/configs/h200.yaml --heads 32 --kv-heads 8 --n 65536 --d 128 --causal --schedule flash2 --pass fwd --predict
-c /work/main/configs/h200.yaml --heads 32 --kv-heads 8 --n 65536 --d 128 --causal --schedule flash2 --pass bwd --predict
-c /work/main/configs/h200.yaml --heads 16 --n 32768 --d 64 --schedule naive --predict
-c /work/main/configs/h100.yaml --heads 16 --n 8192 --d 64 --schedule flash1 --pass fwdbwd --predict
-c /work/main/configs/h200.yaml --heads 32 --kv-heads 8 --n 16384 --d 128 --schedule flash2 --pass fwdbwd --predict
-c /work/main/configs/h100.yaml --heads 16 --n 16384 --d 64 --causal --schedule flash2 --pass fwd --predict
-c /work/main/configs/h200.yaml --heads 32 --kv-heads 8 --n 16384 --d 128 --schedule flash2 --pass fwd --predict --l2-policy random
-c /work/main/configs/h100.yaml --heads 16 --n 16384 --d 64 --schedule naive --predict --l2-policy fifo
LIST
