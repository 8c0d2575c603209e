#!/usr/bin/env bash
# A/B of every time-model and flash3 counters ctest: the same command (main's scripts, data, configs)
# with main's iosim and with BUILD's, one after the other. Prints: test, its limit, main's median,
# BUILD's median, main's and BUILD's exit status (counters tests print no time median: status only).
# Usage: ab.sh MAIN_BUILD BUILD
set -u
main_build=${1:?main build dir}
build=${2:?build dir}
ctest --test-dir "$main_build" -R "time-model|counters.*flash3" -N -V 2>/dev/null |
  awk '/Test command:/ {sub(/^[0-9]+: Test command: /, ""); cmd = $0} /Test +#/ {print $3 "\t" cmd}' |
  while IFS=$'\t' read -r name cmd; do
    args=()
    eval "args=($cmd)"
    limit=$(printf '%s\n' "${args[@]}" | grep -A1 -- '--fail-above-median' | tail -1)
    a=$("${args[@]}" 2>&1); rca=$?
    a=$(grep -Eo 'median \|error\| [0-9.]+%' <<<"$a" | grep -Eo '[0-9.]+%')
    mine=("${args[@]}")
    for i in "${!mine[@]}"; do [[ ${mine[$i]} == "$main_build/iosim" ]] && mine[i]="$build/iosim"; done
    b=$("${mine[@]}" 2>&1); rc=$?
    b=$(grep -Eo 'median \|error\| [0-9.]+%' <<<"$b" | grep -Eo '[0-9.]+%')
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$limit" "$a" "$b" "$rca" "$rc"
  done
