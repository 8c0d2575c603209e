#!/usr/bin/env bash
# Before/after of the work estimate, row by row on the same minute: table.sh (the previous write-up's
# rows) run with the base's binary, then this branch's, one row at a time; with SKIP=1 both run with
# --l2-skip-rounds (through a wrapper that appends it).
# Usage: ab.sh BEFORE_IOSIM AFTER_IOSIM [first-row last-row]   Prints: which, request, estimate, user CPU.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
table=$here/../estimate-steps-2026-12-07/table.sh
before=$1
after=$2
from=${3:-1}
to=${4:-17}
wrap() {
  if [[ ${SKIP:-0} == 1 ]]; then
    local w
    w=$(mktemp)
    printf '#!/bin/sh\nexec %q "$@" --l2-skip-rounds\n' "$1" >"$w"
    chmod +x "$w"
    echo "$w"
  else
    echo "$1"
  fi
}
b=$(wrap "$before")
a=$(wrap "$after")
for ((i = from; i <= to; i++)); do
  printf 'before\t%s\n' "$("$table" "$b" "$i" "$i")"
  printf 'after\t%s\n' "$("$table" "$a" "$i" "$i")"
done
