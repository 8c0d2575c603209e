#!/usr/bin/env bash
# The eighth call of the day (the device tool), from the repository root, carrying .deps/usr.tar.gz and
# .deps/cutlass.tar.xz; everything lands in $OUT (scripts/gpu time-sweep's files). Under 9 minutes:
# today's kernels, the whole menu (-DIOSIM_CUDA_FULL_TILES=ON), against the CPU reference
# (gpu_test_kernels) and timed (iosim validate --no-counters --no-predict) at n = 1024, d = 64 and 128,
# flash2 forward and backward: the data on which the model's compiled registers
# (cuda/kernels/compiled-sm90.csv, today's kernels) and the refitted register model are checked
# (scripts/repredict-validation.py, off the GPU).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
tar -xzf .deps/usr.tar.gz -C .deps && tar -xJf .deps/cutlass.tar.xz -C .deps
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in *H100*) cfg=h100 ;; *) cfg=h200 ;; esac
IOSIM_SWEEP_SHAPES="4,16,1024,64 4,16,1024,128" IOSIM_SWEEP_PARTS="tests flash2" IOSIM_SWEEP_BUDGET=540 \
  scripts/gpu --config "$cfg.yaml" time-sweep
