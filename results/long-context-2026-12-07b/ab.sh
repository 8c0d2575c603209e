#!/usr/bin/env bash
# The long-context issue's requests as whole processes, two builds in turn (A B A B), user CPU seconds
# and peak resident set from /usr/bin/time; then the Python API's predict on B alone (a thin wrapper of
# the same C++ call). Usage: ab.sh A_IOSIM B_IOSIM [PAIRS]   (run from the repository root)
set -euo pipefail
a=$1 b=$2 pairs=${3:-1}
here=results/long-context-2026-12-07b
requests=(
  "-c h200 --heads 32 --kv-heads 8 --n 131072 --d 128 --causal --pass fwdbwd --schedule flash2 --predict"
  "-c h200 --heads 4 --kv-heads 1 --n 131072 --d 128 --causal --schedule flash2 --predict"
  "-c h200 --heads 16 --n 32768 --d 64 --schedule naive --predict"
  "tiles -c h200 --heads 32 --kv-heads 8 --n 131072 --d 128 --causal"
  "sweep $here/sweep-long.yaml -o -"
)
# Every request but the sweep's also takes -f json (the sweep writes its records as JSON lines).
one() {  # build, request: prints "user_s peak_MiB wall_s"
  local t
  t=$(mktemp)
  local extra="-f json"
  [[ $2 == sweep* ]] && extra=""
  # shellcheck disable=SC2086  # the request and the extra flags are word lists
  /usr/bin/time -f '%U %M %e' -o "$t" "$1" $2 -q $extra --max-time 1h >/dev/null
  awk '{printf "%.2f %.1f %.2f", $1, $2 / 1024, $3}' "$t"
  rm -f "$t"
}
echo "# $(date -u '+%F %H:%M UTC'), load $(cut -d' ' -f1 /proc/loadavg), A=$a B=$b"
echo "| request | A user s | A peak MiB | A wall s | B user s | B peak MiB | B wall s |"
echo "|---|---|---|---|---|---|---|"
for r in "${requests[@]}"; do
  for _ in $(seq "$pairs"); do
    echo "| \`$r\` | $(one "$a" "$r" | tr ' ' '|' | sed 's/|/ | /g') | $(one "$b" "$r" | tr ' ' '|' | sed 's/|/ | /g') |"
  done
done
echo "# load at the end $(cut -d' ' -f1 /proc/loadavg)"
