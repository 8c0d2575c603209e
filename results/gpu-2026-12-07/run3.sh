#!/usr/bin/env bash
# The third device call of 2026-12-07, from the repository root, carrying .deps/usr.tar.gz and
# .deps/cutlass.tar.xz: the time model's sweep of today's kernel menu (scripts/gpu time-sweep; the full
# menu, -DIOSIM_CUDA_FULL_TILES=ON) for flash2, flash1 and naive at the two n = 1024 shapes the time-model
# tests' sweeps use (4 x 16, d 64 and 128), on the H100's config; 480 s at most. One archive in $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
tar -xJf .deps/cutlass.tar.xz -C .deps && tar -xzf .deps/usr.tar.gz -C .deps
IOSIM_SWEEP_SHAPES="4,16,1024,64 4,16,1024,128" IOSIM_SWEEP_PARTS="tests flash2 flash1 naive" \
  IOSIM_SWEEP_BUDGET=480 scripts/gpu --config h100.yaml time-sweep
