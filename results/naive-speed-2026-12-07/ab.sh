#!/usr/bin/env bash
# A/B of two iosim binaries, whole processes alternating: CPU seconds (user + system, /usr/bin/time)
# of each request, `pairs` pairs each. Usage: ab.sh A B [pairs]. Prints one line per run.
set -euo pipefail
a=$1
b=$2
pairs=${3:-3}
requests=(
  "-c h200 --heads 16 --n 32768 --d 64 --schedule naive --predict"
  "-c h200 --heads 32 --kv-heads 8 --n 65536 --d 128 --causal --schedule flash2 --predict"
)
echo "# $(date -u '+%Y-%m-%d %H:%M UTC') $(uname -n) $(nproc) cores; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in "${requests[@]}"; do
  for ((i = 1; i <= pairs; i++)); do
    for bin in "$a" "$b"; do
      # shellcheck disable=SC2086  # each request is a list of words
      /usr/bin/time -f "%U %S" -o /tmp/ab.$$ "$bin" $r >/dev/null
      read -r user sys </tmp/ab.$$
      echo "$bin | $r | pair $i | cpu $(echo "$user + $sys" | bc) s (user $user, sys $sys)"
    done
  done
done
rm -f /tmp/ab.$$
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
