#!/usr/bin/env python3
"""PyTorch's attention beside flash3 (scripts/gpu flash3-check): forward of
torch.nn.functional.scaled_dot_product_attention under SDPBackend.CUDNN_ATTENTION and
SDPBackend.FLASH_ATTENTION, timed as flash3_check bench times flash3 (CUDA events around each launch,
W warm-up launches, median of R), for every (batch, heads, n, d) given, fp16 and bf16, causal and not.

  python3 scripts/fa3-sdpa.py --shape 1,16,8192,64 --shape 2,16,8192,128 [--warmup 5] [--runs 30]

One line per (backend, dtype, shape, mask): median / min / max ms and TFLOP/s (4·b·h·n²·d flops,
half that causal), or the error a backend gave for that case. Layout: Q, K, V [b, h, n, d].
"""
import argparse
import statistics
import sys


def parse_arguments(doc, prog):
    """--shape (repeated), --warmup, --runs, as both SDPA scripts take them: (args, shapes); a shape that is
    not four integers ends the program with one line and exit status 2."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shape", action="append", required=True, help="batch,heads,n,d")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    shapes = []
    for s in args.shape:
        try:
            b, h, n, d = (int(x) for x in s.split(","))
        except ValueError:
            print(f"{prog}: --shape: expected batch,heads,n,d, got '{s}'", file=sys.stderr)
            sys.exit(2)
        shapes.append((b, h, n, d))
    return args, shapes


def main():
    args, shapes = parse_arguments(__doc__, "fa3-sdpa.py")

    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel

    F = torch.nn.functional
    print(f"torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, {torch.cuda.get_device_name(0)}")
    backends = [("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION)]
    for b, h, n, d in shapes:
        for dtype_name, dtype in (("fp16", torch.float16), ("bf16", torch.bfloat16)):
            g = torch.Generator(device="cuda").manual_seed(7)
            q, k, v = (torch.randn(b, h, n, d, device="cuda", dtype=dtype, generator=g) for _ in range(3))
            for causal in (False, True):
                flops = 4.0 * b * h * n * n * d * (0.5 if causal else 1.0)
                for name, backend in backends:
                    mask = 'causal' if causal else 'full'
                    tag = f"sdpa {name:5} {dtype_name} d{d} batch {b} heads {h} n {n} {mask:6}"
                    try:
                        with sdpa_kernel(backend), torch.no_grad():
                            for _ in range(args.warmup):
                                F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                            torch.cuda.synchronize()
                            times = []
                            for _ in range(args.runs):
                                t0 = torch.cuda.Event(enable_timing=True)
                                t1 = torch.cuda.Event(enable_timing=True)
                                t0.record()
                                F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                                t1.record()
                                t1.synchronize()
                                times.append(t0.elapsed_time(t1))
                        med = statistics.median(times)
                        print(f"{tag}  median {med:.4f} ms  min {min(times):.4f}  max {max(times):.4f}  "
                              f"{flops / (med * 1e-3) / 1e12:.1f} TFLOP/s  ({args.runs} runs)", flush=True)
                    except Exception as e:  # a backend that refuses the case says so, the others still run
                        print(f"{tag}  error: {type(e).__name__}: {str(e).splitlines()[0][:160]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
