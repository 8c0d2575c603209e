#!/usr/bin/env bash
# Estimate (as --max-time prints it) against measured user CPU seconds (/usr/bin/time), one run each,
# for the requests of docs/performance.md's "The fast replay's estimate" table and a few more.
# Usage: table.sh IOSIM [first-row last-row]   (rows 1-based; default all). Prints one TSV line a request.
set -euo pipefail
bin=$1
from=${2:-1}
to=${3:-999}
rows=(
  "naive fwd, 16 heads, n 8192, d 64|--schedule naive --pass fwd --heads 16 --n 8192 --d 64"
  "flash2 fwd, 32 heads, n 32768, d 128|--schedule flash2 --pass fwd --heads 32 --n 32768 --d 128"
  "flash2 bwd, 16 heads, n 16384, d 128|--schedule flash2 --pass bwd --heads 16 --n 16384 --d 128"
  "flash2 fwd causal, 32 heads, n 32768, d 128|--schedule flash2 --pass fwd --heads 32 --n 32768 --d 128 --causal"
  "flash1 bwd, 16 heads, n 8192, d 64|--schedule flash1 --pass bwd --heads 16 --n 8192 --d 64"
  "flash2 bwd causal, 32 heads, n 16384, d 64|--schedule flash2 --pass bwd --heads 32 --n 16384 --d 64 --causal"
  "naive bwd, 4 heads, n 16384, d 64|--schedule naive --pass bwd --heads 4 --n 16384 --d 64"
  "flash2 fwd causal, 32 heads, n 131072, d 128|--schedule flash2 --pass fwd --heads 32 --n 131072 --d 128 --causal"
  "flash2 bwd causal, 32 heads, n 131072, d 128|--schedule flash2 --pass bwd --heads 32 --n 131072 --d 128 --causal"
  "flash2 fwd causal, 32 on 8 heads, n 65536, d 128|--schedule flash2 --pass fwd --heads 32 --kv-heads 8 --n 65536 --d 128 --causal"
  "naive fwd, 16 heads, n 32768, d 64|--schedule naive --pass fwd --heads 16 --n 32768 --d 64"
  "flash2 fwd + bwd causal, 32 on 8 heads, n 131072, d 128|--schedule flash2 --pass fwdbwd --heads 32 --kv-heads 8 --n 131072 --d 128 --causal"
  "flash1 fwd, 16 heads, n 16384, d 64|--schedule flash1 --pass fwd --heads 16 --n 16384 --d 64"
  "flash3 fwd causal, 16 heads, n 32768, d 128|--schedule flash3 --pass fwd --heads 16 --n 32768 --d 128 --causal"
  "flash3 bwd, 16 heads, n 8192, d 128|--schedule flash3 --pass bwd --heads 16 --n 8192 --d 128"
  "flashdecode, 32 on 8 heads, batch 8, n_kv 65536, d 128|--schedule flashdecode --pass fwd --batch 8 --heads 32 --kv-heads 8 --n 1 --n-kv 65536 --d 128 --causal"
  "naive fwd + bwd causal, 8 heads, n 8192, d 64|--schedule naive --pass fwdbwd --heads 8 --n 8192 --d 64 --causal"
)
i=0
for row in "${rows[@]}"; do
  i=$((i + 1))
  if ((i < from || i > to)); then continue; fi
  name=${row%%|*}
  read -r -a args <<<"${row#*|}"
  est=$("$bin" -c h200 --predict -q "${args[@]}" --max-time 0.001s 2>&1 >/dev/null | sed -n 's/.*would take about \([^(]*\) (estimate.*/\1/p' || true)
  user=$( { /usr/bin/time -f '%U' "$bin" -c h200 --predict -q "${args[@]}" >/dev/null; } 2>&1 | tail -1)
  printf '%s\t%s\t%s\n' "$name" "${est% }" "$user"
done
