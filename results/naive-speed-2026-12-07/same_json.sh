#!/usr/bin/env bash
# Compares the --predict JSON of two iosim binaries on a few naive and flash2 requests (the
# config's file path, which names each binary's checkout, is left out). Usage: same_json.sh A B
set -euo pipefail
a=$1
b=$2
requests=(
  "-c h200 --heads 16 --n 32768 --d 64 --schedule naive"
  "-c h200 --heads 32 --kv-heads 8 --n 65536 --d 128 --causal --schedule flash2"
  "-c h200 --heads 8 --n 4096 --d 128 --schedule naive"
  "-c h200 --heads 8 --n 8192 --d 64 --causal --schedule naive"
  "-c h100 --heads 12 --n 16384 --d 128 --schedule flash2"
  "-c h200 --heads 16 --n 2048 --d 64 --causal --schedule flash2"
  "-c h200 --batch 2 --heads 16 --n 8192 --d 64 --schedule naive --launch-order heads"
  "-c h200 --heads 16 --kv-heads 4 --n 16384 --d 128 --causal --schedule flash2 --launch-order heads"
  "-c h200 --heads 8 --n 8192 --d 64 --causal --schedule flash2 --pass bwd"
  "-c a100 --heads 8 --n 8192 --d 64 --schedule naive,flash2 --l2-policy fifo"
)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for r in "${requests[@]}"; do
  # shellcheck disable=SC2086  # each request is a list of words
  "$a" $r --predict -f json | grep -v '"file":' >"$tmp/a"
  # shellcheck disable=SC2086
  "$b" $r --predict -f json | grep -v '"file":' >"$tmp/b"
  if ! grep -q '"predicted"' "$tmp/a"; then
    echo "NO PREDICTION: $r"
    status=1
  elif cmp -s "$tmp/a" "$tmp/b"; then
    echo "same: $r"
  else
    echo "DIFFERENT: $r"
    status=1
  fi
done
exit $status
