# windec: the sliding window in flashdecode and flashdecode-heads (cuda/kernels/flashdecode.cuh) and in
# flash3's forward and backward (cuda/kernels/flash3/), sourced by the run script, which defines
# gpu_test, validate and sanitize. About 4 minutes of GPU time at most:
#   1. the kernels against the double-precision reference: decoding's windows (ragged, 1 key, every key,
#      n > n_kv, pages of 16 and 64 shuffled, forced splits); the existing decode tests, since the causal
#      mask now applies to decoding too; flash3's windows forward and backward (test_flash3_backend);
#   2. validate: bytes against the model — decoding at n_kv 16384 with windows of 1024 and 4096 keys,
#      contiguous and in shuffled pages of 64 (each split keeps only the window's tiles); flash3 forward
#      and backward with a window of 1024 at n = 4096;
#   3. memcheck and racecheck on one small ragged windowed case per kernel.
gpu_test window_decode 150
gpu_test flash3_backend 120
gpu_test decode 60
windec_shape=(--schedule flashdecode --schedule flashdecode-heads --shape 2,32,1,64 --n-kv 16384 --causal)
validate windec-w1024 "${windec_shape[@]}" --window 1024
validate windec-w4096 "${windec_shape[@]}" --window 4096
validate windec-w1024-p64 "${windec_shape[@]}" --window 1024 --page-size 64 --page-order random
validate windec-w4096-p64 "${windec_shape[@]}" --window 4096 --page-size 64 --page-order random
# The default build compiles flash3 at d = 128 fp16 only: its problems are at d = 128.
validate windec-flash3-w1024 --schedule flash3 --shape 1,16,4096,128 --causal --window 1024
# sanitize measures at d = 64; flash3's sanitized cases need d = 128, so they run here by hand.
windec_sanitize_d128() {
  local tool=$1 name=$2; shift 2
  timeout 60 compute-sanitizer --tool "$tool" --error-exitcode 3 "$build/iosim" measure --config "$cfg.yaml" --d 128 \
    --no-counters --runs 1 --warmup 0 "$@" >>"$res/sanitizer-$tool.log" 2>&1
  echo "$tool $name: exit $?" | tee -a "$res/stamps.txt"
}
for tool in memcheck racecheck; do
  sanitize $tool windec-decode --schedule flashdecode --batch 2 --heads 8 --kv-heads 2 --n 1 --n-kv 3001 \
    --causal --window 700 --page-size 16 --page-order random
  sanitize $tool windec-decode-heads --schedule flashdecode-heads --batch 1 --heads 4 --kv-heads 2 --n 100 \
    --n-kv 900 --causal --window 130 --page-size 64 --page-order random --splits 3
  windec_sanitize_d128 $tool windec-flash3-fwd --schedule flash3 --pass fwd --batch 1 --heads 2 --n 333 --causal --window 97
  windec_sanitize_d128 $tool windec-flash3-bwd --schedule flash3 --pass bwd --batch 1 --heads 2 --n 333 --causal --window 97
done
