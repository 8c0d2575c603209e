#!/bin/sh
# A/B of the GQA n 131072 request, one pass, alternating main, branch, branch, main:
#   ab.sh fwd|bwd   with $OUTDIR/iosim-main and $OUTDIR/iosim-br2 (appends to $OUTDIR/ab.log)
OUTDIR=${OUTDIR:-/tmp/gq2}
i=0
for t in main br2 br2 main; do
  i=$((i + 1))
  echo "$t $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)" >> "$OUTDIR/ab.log"
  /usr/bin/time -f "%U %S %e %M" "$OUTDIR/iosim-$t" -c h200 --heads 32 --kv-heads 8 --n 131072 --d 128 --causal \
    --pass "$1" --schedule flash2 --predict -q -f json --max-time 2h \
    > "$OUTDIR/ab-$t-$1-$i.json" 2> "$OUTDIR/ab-$t-$1-$i.time"
  echo "  $(cat "$OUTDIR/ab-$t-$1-$i.time")" >> "$OUTDIR/ab.log"
done
