#!/usr/bin/env python3
"""Times PyTorch's scaled_dot_product_attention with the flash backend (FlashAttention-2 kernels) on one
problem, the way iosim measure times its kernels: CUDA events, median of N runs after warm-up, each
run after a sweep of the L2 (cold) and back to back (warm). Prints one JSON object.

  python3 scripts/sdpa_bench.py --batch 1 --heads 16 --n 8192 --d 64 --dtype fp16
"""
import argparse
import json
import statistics
import sys


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--n", type=int, default=8192)
    ap.add_argument("--d", type=int, default=64)
    ap.add_argument("--dtype", choices=["fp16", "bf16"], default="fp16")
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=10)
    a = ap.parse_args()
    try:
        import torch
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError as e:  # no torch here: say so, do not pretend
        print(json.dumps({"error": f"torch unavailable: {e}"}))
        return 2
    if not torch.cuda.is_available():
        print(json.dumps({"error": "no CUDA GPU"}))
        return 2
    dt = torch.float16 if a.dtype == "fp16" else torch.bfloat16
    g = torch.Generator(device="cuda").manual_seed(20261129)
    q, k, v = (torch.randn(a.batch, a.heads, a.n, a.d, device="cuda", dtype=dt, generator=g) for _ in range(3))
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    sweep = torch.empty(4 * l2 // 4, dtype=torch.float32, device="cuda")

    def run():
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            return torch.nn.functional.scaled_dot_product_attention(q, k, v)

    for _ in range(a.warmup):
        run()
    torch.cuda.synchronize()

    def timed(cold: bool) -> list:
        out = []
        for _ in range(a.runs):
            if cold:
                sweep.sum()
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            run()
            e.record()
            e.synchronize()
            out.append(s.elapsed_time(e))
        return out

    cold, warm = timed(True), timed(False)
    flops = 4.0 * a.batch * a.heads * a.n * a.n * a.d
    med_c, med_w = statistics.median(cold), statistics.median(warm)
    print(json.dumps({
        "what": "torch scaled_dot_product_attention, SDPBackend.FLASH_ATTENTION",
        "torch": torch.__version__, "device": torch.cuda.get_device_name(0),
        "batch": a.batch, "heads": a.heads, "n": a.n, "d": a.d, "dtype": a.dtype, "runs": a.runs,
        "median_ms_cold": med_c, "median_ms_warm": med_w,
        "tflops_cold": flops / med_c / 1e9, "tflops_warm": flops / med_w / 1e9,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
