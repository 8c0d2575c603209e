# run7's fragment for the sliding window in flash1's forward and flash1's and flash2's backward, sourced
# by the run script, which defines gpu_test, validate and sanitize. About 4 minutes at most:
#   1. the GPU accuracy test (tests/gpu/test_window_bwd.cpp): every lean variant, fp16 and bf16,
#      d = 64 and 128, ragged windows against the double-precision reference (120 s at most);
#   2. iosim validate at n = 4096, 16 heads, windows of 256 and 1024 keys: the DRAM and L2 bytes of
#      the kernels against the model's (tiles outside the window skipped in both);
#   3. compute-sanitizer memcheck and racecheck on one ragged window a kernel (n = 333, W = 97: neither a
#      multiple of the tile).
gpu_test window_bwd 120
for w in 256 1024; do
  validate flash1-fwd-w$w --schedule flash1 --pass fwd --shape 1,16,4096,64 --causal --window $w
  validate flash1-bwd-w$w --schedule flash1 --pass bwd --shape 1,16,4096,64 --causal --window $w
  validate flash2-bwd-w$w --schedule flash2 --pass bwd --shape 1,16,4096,64 --causal --window $w
done
for tool in memcheck racecheck; do
  sanitize $tool flash1-fwd-window-ragged --schedule flash1 --pass fwd --batch 1 --heads 2 --n 333 --causal --window 97
  sanitize $tool flash1-bwd-window-ragged --schedule flash1 --pass bwd --batch 1 --heads 2 --n 333 --causal --window 97
  sanitize $tool flash2-bwd-window-ragged --schedule flash2 --pass bwd --batch 1 --heads 2 --n 333 --causal --window 97
done
