#!/bin/sh
# The cut-down H200's GQA causal forward, fast or exact, from the repo root:
#   acc.sh BIN TAG fast|exact HEADS KV_HEADS   (writes $OUTDIR/TAG-L2-HEADS.json and .time)
OUTDIR=${OUTDIR:-/tmp/gq2}
/usr/bin/time -f "%U %S %e %M" "$1" --config results/gqa-heads-2026-12-07/h200-small.yaml --heads "$4" --kv-heads "$5" \
  --n 16384 --d 128 --causal --schedule flash2 --pass fwd --predict -f json --l2 "$3" \
  > "$OUTDIR/$2-$3-$4.json" 2> "$OUTDIR/$2-$3-$4.time"
