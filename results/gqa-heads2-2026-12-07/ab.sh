#!/bin/sh
# A/B alternating: main, branch, branch, main for pass $1
for t in main br2 br2 main; do
  n=$(ls /tmp/gq2/ab-$t-$1-*.json 2>/dev/null | wc -l)
  echo "$t $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)" >> /tmp/gq2/ab.log
  /usr/bin/time -f "%U %S %e %M" /tmp/gq2/iosim-$t -c h200 --heads 32 --kv-heads 8 --n 131072 --d 128 --causal --pass "$1" --schedule flash2 --predict -q -f json --max-time 2h > /tmp/gq2/ab-$t-$1-$n.json 2> /tmp/gq2/ab-$t-$1-$n.time
  echo "  $(cat /tmp/gq2/ab-$t-$1-$n.time)" >> /tmp/gq2/ab.log
done
