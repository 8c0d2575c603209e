#!/usr/bin/env bash
# A/B of the four flash3 forward time-model ctests (their commands and limits as of main 83153ae): the same
# scripts/time-validation.py command with iosim binary A, then B. Prints data set, binary, exit status, median.
# Usage (from the repository root): ab-fwd.sh A_IOSIM B_IOSIM
set -u
a=${1:?iosim A}
b=${2:?iosim B}
for spec in "h200-validate-flash3-fwd.json h200 11.0" "h100-validate-flash3.json h100 11.0" \
            "h100-validate-flash3-second.json h100 11.5" "h100-flash3-paged.json h100 4.1"; do
  read -r data cfg limit <<<"$spec"
  for bin in "$a" "$b"; do
    out=$(python3 scripts/time-validation.py "tests/data/$data" --config "configs/$cfg.yaml" --iosim "$bin" \
          --schedule flash3 --pass fwd --fail-above-median "$limit" 2>&1)
    rc=$?
    printf '%s\t%s\trc=%s\t%s\n' "$data" "$bin" "$rc" "$(grep -E '^\| all ' <<<"$out")"
  done
done
