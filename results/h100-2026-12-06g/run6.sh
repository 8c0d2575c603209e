#!/usr/bin/env bash
# The sixth call of the day (the device tool), from the repository root, with .deps/usr carried; everything
# lands in $OUT/run6-<gpu>.tar.gz. Under 8 minutes:
#   1. a build of iosim with the CUDA backend (lean menu);
#   2. compute-sanitizer memcheck and racecheck on the window and paged kernels (iosim measure at small,
#      ragged problems: a window that is not a multiple of the tile, random pages, decoding's splits);
#   3. iosim validate over the issue's ranges left after run4.sh: decoding with pages of 16, 64 and 256
#      (in order and random) at batch 1 and 64 and n_kv from 4096 to 131072; windows of 256 and 4096 keys
#      at n = 32768.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
res=/tmp/run6-res build=build-gpu
mkdir -p "${OUT:-/tmp/out}" "$res"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export IOSIM_CONFIG_DIR="$PWD/configs" IOSIM_SCENARIO_DIR="$PWD/scenarios" PATH="/usr/local/cuda/bin:$PATH"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in *H100*) cfg=h100 ;; *) cfg=h200 ;; esac
finish() { cp results/gpu-2026-12-06/run6.sh "$res/"; tar -czf "${OUT:-/tmp/out}/run6-$cfg.tar.gz" -C "$res" .; }
trap finish EXIT
t0=$SECONDS
stamp() { echo "$1: exit $2 at $((SECONDS - t0)) s" | tee -a "$res/stamps.txt"; }
left() { echo $((460 - SECONDS + t0)); }
{ date -u; echo "GPU: $gpu (config $cfg.yaml)"; nvidia-smi; compute-sanitizer --version | tail -1; } >"$res/environment.txt" 2>&1
timeout 240 bash -c "cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DIOSIM_STATIC_DEPS=ON -DIOSIM_BUILD_BENCH=OFF \
    -DIOSIM_BUILD_TESTS=OFF -DIOSIM_NOTEBOOK_TESTS=OFF -DIOSIM_PYTHON=OFF -DIOSIM_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_PREFIX_PATH='$PWD/.deps/usr/lib/x86_64-linux-gnu/cmake;$PWD/.deps/usr' && cmake --build $build -j$(nproc) --target iosim" \
  >"$res/build.log" 2>&1
stamp build $?
iosim=$build/iosim
# One sanitized measure: its name, then its flags. Exit 3 is a sanitizer finding; 2 a refusal (said in the log).
sanitize() {
  local tool=$1 name=$2; shift 2
  timeout 60 compute-sanitizer --tool "$tool" --error-exitcode 3 "$iosim" measure --config "$cfg.yaml" --d 64 \
    --no-counters --runs 1 --warmup 0 "$@" >>"$res/sanitizer-$tool.log" 2>&1
  stamp "$tool $name" $?
}
for tool in memcheck racecheck; do
  sanitize $tool window-ragged --schedule flash2 --pass fwd --batch 1 --heads 2 --n 333 --causal --window 97
  sanitize $tool window-gqa --schedule flash2 --pass fwd --batch 1 --heads 4 --kv-heads 2 --n 512 --causal --window 128
  sanitize $tool prefill-pages16 --schedule flash2 --pass fwd --batch 2 --heads 2 --n 512 --causal --page-size 16 --page-order random
  sanitize $tool prefill-pages256 --schedule flash2 --pass fwd --batch 1 --heads 2 --n 512 --page-size 256 --page-order random
  sanitize $tool decode-pages16 --schedule flashdecode --batch 2 --heads 4 --kv-heads 1 --n 1 --n-kv 2048 --page-size 16 --page-order random
  sanitize $tool decode-heads-pages64 --schedule flashdecode-heads --batch 2 --heads 4 --kv-heads 1 --n 1 --n-kv 2048 --page-size 64 --page-order random
done
validate() {
  local name=$1; shift
  local t; t=$(left)
  if [ "$t" -le 15 ]; then echo "validate $name: no time left" | tee -a "$res/stamps.txt"; return; fi
  [ "$t" -gt 60 ] && t=60
  timeout "$t" "$iosim" validate --config "$cfg.yaml" --out "$res" --runs 10 --warmup 3 "$@" \
    2>"$res/validate-$name-progress.txt" >/dev/null
  stamp "validate $name" $?
}
dec=(--schedule flashdecode --schedule flashdecode-heads)
validate decode-b64-nkv4096-p16 "${dec[@]}" --shape 64,32,1,64 --n-kv 4096 --page-size 16 --page-order random
validate decode-b1-nkv131072-p16 "${dec[@]}" --shape 1,32,1,64 --n-kv 131072 --page-size 16 --page-order random
validate window32k-w256 --schedule flash2 --pass fwd --shape 1,16,32768,64 --causal --window 256
validate decode-b64-nkv4096-p256 "${dec[@]}" --shape 64,32,1,64 --n-kv 4096 --page-size 256 --page-order random
validate decode-b1-nkv131072-p256 "${dec[@]}" --shape 1,32,1,64 --n-kv 131072 --page-size 256 --page-order random
validate window32k-w4096 --schedule flash2 --pass fwd --shape 1,16,32768,64 --causal --window 4096
validate decode-b64-nkv4096-p64-contiguous "${dec[@]}" --shape 64,32,1,64 --n-kv 4096 --page-size 64
validate decode-b1-nkv131072-p64 "${dec[@]}" --shape 1,32,1,64 --n-kv 131072 --page-size 64 --page-order random
validate decode-b64-nkv4096-unpaged "${dec[@]}" --shape 64,32,1,64 --n-kv 4096
validate decode-b1-nkv131072-unpaged "${dec[@]}" --shape 1,32,1,64 --n-kv 131072
grep -c "ERROR SUMMARY: 0 errors" "$res"/sanitizer-*.log; grep -h "ERROR SUMMARY" "$res"/sanitizer-*.log | sort | uniq -c
cat "$res/stamps.txt"
