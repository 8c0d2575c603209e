#!/usr/bin/env bash
# The tenth call of the day (the device tool; asks for nvidia-h200, which may give an H100), carrying
# .deps/usr.tar.gz and .deps/cutlass.tar.xz: run9.sh (every GPU test after the CUDA side took its
# buffers from the registry entry), then, on an H200 only, the project's Triton kernels over their whole
# menu at the sweep's five shapes (scripts/triton-sweep.py, as run3.sh did on the H100) in the time left
# of 9 minutes. Everything lands in $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
t0=$SECONDS
bash results/gpu-2026-12-06/run9.sh
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in
  *H200*)
    left=$((520 - SECONDS + t0))
    if [ "$left" -gt 120 ]; then
      mkdir -p /tmp/run10-res
      export PYTHONUNBUFFERED=1
      timeout "$left" python3 scripts/triton-sweep.py --budget $((left - 20)) --prepare-share 0.45 --reps 5 \
        --out /tmp/run10-res/triton-sweep.json >/tmp/run10-res/triton-sweep.log 2>&1
      echo "triton sweep: exit $? at $((SECONDS - t0)) s" | tee -a /tmp/run10-res/stamps.txt
      cp results/gpu-2026-12-06/run10.sh /tmp/run10-res/
      tar -czf "${OUT:-/tmp/out}/run10-triton-h200.tar.gz" -C /tmp/run10-res .
    fi ;;
  *) echo "run10: $gpu is not an H200: no Triton sweep" ;;
esac
