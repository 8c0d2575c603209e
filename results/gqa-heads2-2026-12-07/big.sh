#!/bin/sh
# usage: big.sh BIN TAG PASS
/usr/bin/time -f "%U %S %e %M" "$1" -c h200 --heads 32 --kv-heads 8 --n 131072 --d 128 --causal --pass "$3" --schedule flash2 --predict -q -f json --max-time 2h > "/tmp/gq2/big-$2-$3.json" 2> "/tmp/gq2/big-$2-$3.time"
