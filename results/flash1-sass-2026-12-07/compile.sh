#!/bin/bash
# Compile c44b366's flash1 and flash2-bwd instantiation files as sass-step-mix.py compiles today's.
# Usage: compile.sh TREE (TREE: `git archive c44b366 | tar -x -C TREE`; cubins to TREE/out/).
set -e
mkdir -p "${1:?the c44b366 tree}/out"
cd "${1:?the c44b366 tree}"
for f in cuda/kernels/inst/flash1_*.cu cuda/kernels/inst/flash2_bwd_*.cu; do
  b=out/$(basename "$f" .cu)
  [ -s "$b.cubin" ] && continue
  nice /usr/local/cuda/bin/nvcc -O3 -DNDEBUG -std=c++20 -arch=sm_90 -cubin -lineinfo -DIOSIM_CUDA_FULL_TILES=1 \
    -I"$PWD" -o "$b.cubin" "$f" 2> "$b.err" || { echo "FAIL $f"; cat "$b.err"; continue; }
  echo "ok $f $(date +%T)"
done
