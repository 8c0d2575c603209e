#!/usr/bin/env bash
# A device call of the sixth session of 2026-12-07, from the repository root with
# results/contig-2026-12-07/contig-on-main.patch applied there (`git apply --exclude=tests/golden/grid.sha256`),
# carrying .deps/usr.tar.gz and .deps/cutlass.tar.xz. It measures what the time-model ctests read for
# iosim's flash2 forward, on the contig kernels (compiled for contiguous and paged K/V apart), so that
# those data match the kernels the model now prices. Under 9 minutes, one archive $OUT/contig-data-<cfg>.tar.gz:
#   1. scripts/gpu time-sweep: the full flash2 menu at 4 × 16 × 1024, d 64 and 128 (as
#      results/gpu-2026-12-06/run8.sh), for tests/data/<cfg>-time-sweep-flash2-n1024.json;
#   2. with that build's iosim, the flash2 forward runs of tests/data/h100-window-paged.json
#      (results/gpu-2026-12-06/run-window-paged.sh's shapes, windows, pages; 10 timed runs, 3 warm-up).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
out=${OUT:-/tmp/out} res=/tmp/contig-data
mkdir -p "$out" "$res"
tar -xzf .deps/usr.tar.gz -C .deps && tar -xJf .deps/cutlass.tar.xz -C .deps
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export IOSIM_CONFIG_DIR="$PWD/configs" IOSIM_SCENARIO_DIR="$PWD/scenarios" PATH="/usr/local/cuda/bin:$PATH"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in *H100*) cfg=h100 ;; *) cfg=h200 ;; esac
finish() { cp "$0" "$res/"; tar -czf "$out/contig-data-$cfg.tar.gz" -C "$res" .; }
trap finish EXIT
t0=$SECONDS
stamp() { echo "$1: exit $2 at $((SECONDS - t0)) s" | tee -a "$res/stamps.txt"; }
{ date -u; echo "GPU: $gpu (config $cfg.yaml)"; nvidia-smi; nvcc --version | tail -2; } >"$res/environment.txt" 2>&1
OUT="$res/time-sweep" IOSIM_SWEEP_SHAPES="4,16,1024,64 4,16,1024,128" IOSIM_SWEEP_PARTS="tests flash2" \
  IOSIM_SWEEP_BUDGET=300 timeout 320 scripts/gpu --config "$cfg.yaml" time-sweep >"$res/time-sweep.log" 2>&1
stamp "time sweep" $?
iosim=build-sweep/iosim
[ -x "$iosim" ] || { echo "no iosim: the sweep's build failed" | tee -a "$res/stamps.txt"; exit 1; }
validate() {
  local name=$1; shift
  local t=$((${RUN6_BUDGET:-510} - SECONDS + t0))
  if [ "$t" -le 15 ]; then echo "validate $name: no time left" | tee -a "$res/stamps.txt"; return; fi
  [ "$t" -gt 45 ] && t=45
  timeout "$t" "$iosim" validate --config "$cfg.yaml" --out "$res" --runs 10 --warmup 3 \
    --tile 128x64 --warps 4 --stages 2 "$@" \
    2>"$res/validate-$name-progress.txt" >/dev/null
  stamp "validate $name" $?
}
win=(--schedule flash2 --pass fwd --shape "1,16,4096,64" --shape "1,16,16384,64" --causal)
prefill=(--schedule flash2 --pass fwd --shape "1,16,4096,64" --causal --page-order random)
validate causal "${win[@]}"
validate window256 "${win[@]}" --window 256
validate window1024 "${win[@]}" --window 1024
validate window4096 "${win[@]}" --window 4096
validate unmasked --schedule flash2 --pass fwd --shape "1,16,4096,64" --shape "1,16,16384,64"
validate prefill-page16 "${prefill[@]}" --page-size 16
validate prefill-page64 "${prefill[@]}" --page-size 64
validate prefill-page256 "${prefill[@]}" --page-size 256
validate long-window256 --schedule flash2 --pass fwd --shape "1,16,32768,64" --causal --window 256
validate long-window4096 --schedule flash2 --pass fwd --shape "1,16,32768,64" --causal --window 4096
