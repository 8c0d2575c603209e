#!/bin/sh
# The 4-SM, 256 KiB A100's GQA causal forward (heads / 4 K/V heads), from the repo root:
#   BIN=... small.sh TAG fast|exact HEADS   (writes $OUTDIR/TAG-L2-sHEADS.json)
OUTDIR=${OUTDIR:-/tmp/gq2}
"${BIN:?}" --config results/gqa-heads2-2026-12-07/a100-4sm-256k.yaml --heads "$3" --kv-heads "$(($3 / 4))" \
  --n 4096 --d 64 --causal --schedule flash2 --pass fwd --predict -f json --l2 "$2" > "$OUTDIR/$1-$2-s$3.json"
