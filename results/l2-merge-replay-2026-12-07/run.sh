#!/bin/sh
# Re-predicts the committed GPU validation runs with the exact L2 replay, without and with
# --l2-merge, writing per-kernel errors (before-*.json, after-*.json) and the printed summaries here.
set -e
cd "$(dirname "$0")/../.."
out=results/l2-merge-replay-2026-12-07
iosim=${IOSIM:-build/iosim}
one() {  # label config validation.json
  for mode in before after; do
    extra=""
    [ "$mode" = after ] && extra="--iosim-arg=--l2-merge"
    # shellcheck disable=SC2086
    scripts/repredict-validation.py "$3" --config "$2" --iosim "$iosim" --jobs 2 $extra \
      --json-out "$out/$mode-$1.json" > "$out/$mode-$1.txt"
  done
}
one h100-quick configs/h100.yaml results/h100-2026-12-07/validation-nvidia-h100-80gb-hbm3-2026-12-07-quick.json
one h100d-quick configs/h100.yaml results/h100-2026-12-07d/contig/validation-nvidia-h100-80gb-hbm3-2026-12-07-quick.json
one h200-quick configs/h200.yaml \
  results/h200-2026-12-01b/kernels-check/validation-nvidia-h200-2026-12-01-quick-flash2-flash1-naive.json
one h200-masks configs/h200.yaml \
  results/h200-2026-12-01b/kernels-check/validation-nvidia-h200-2026-12-01-masks-flash2-flash1-naive.json
