#!/usr/bin/env bash
# The fourth call of the day (the device tool), from the repository root, with .deps/usr carried: the
# sliding window and paged K/V (run-window-paged.sh, its budget cut to 420 s), then PyTorch's
# FlashAttention-2 kernels under ncu with their L2 requests split by kind (scripts/gpu fa2-writes, two
# shapes) in the minutes left. Everything lands in $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
BUDGET=420 bash results/gpu-2026-12-06/run-window-paged.sh
SHAPES="2,16,2048,64 1,1,8192,64" timeout 120 scripts/gpu fa2-writes
echo "fa2-writes: exit $?"
