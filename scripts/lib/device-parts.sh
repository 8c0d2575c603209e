# Sourced by the one-call GPU scripts (scripts/gpu time-sweep, scripts/gpu instruction-mix): each part
# of a call runs under a time cap, so that a slow part cuts itself and the rest still runs and packs.
# The sourcing script sets: start=$SECONDS, budget (seconds for the whole call), work (log folder),
# tag (the name in the log lines); parts collects one line per part for the summary table.
# shellcheck shell=bash disable=SC2154
parts=()
part() {  # part NAME CAP LOG COMMAND...: COMMAND under timeout min(CAP, time left − 15 s), logged and timed
  local name=$1 cap=$2 log=$3
  shift 3
  local left=$((budget - (SECONDS - start) - 15))
  ((left < cap)) && cap=$left
  if ((cap < 5)); then
    parts+=("$(printf '%-22s %-14s' "$name" "skipped (no time left)")")
    echo "[$tag] $name: skipped, no time left"
    return 0
  fi
  local t0=$SECONDS rc=0
  echo "[$tag] $name (at most ${cap} s)"
  timeout "$cap" "$@" >"$work/$log" 2>&1 || rc=$?
  local what=ok
  ((rc == 124)) && what="cut at ${cap} s"
  ((rc != 0 && rc != 124)) && what="FAILED ($rc)"
  parts+=("$(printf '%-22s %-14s %4s s   %s' "$name" "$what" $((SECONDS - t0)) "$log")")
  echo "[$tag] $name: $what, $((SECONDS - t0)) s"
  return 0
}
