#!/bin/sh
# The GQA n 131072 request, one pass:  big.sh BIN TAG fwd|bwd   (writes $OUTDIR/big-TAG-PASS.json and .time)
OUTDIR=${OUTDIR:-/tmp/gq2}
/usr/bin/time -f "%U %S %e %M" "$1" -c h200 --heads 32 --kv-heads 8 --n 131072 --d 128 --causal --pass "$3" \
  --schedule flash2 --predict -q -f json --max-time 2h > "$OUTDIR/big-$2-$3.json" 2> "$OUTDIR/big-$2-$3.time"
