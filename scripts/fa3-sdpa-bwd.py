#!/usr/bin/env python3
"""PyTorch's attention backward beside flash3's (scripts/gpu flash3-bwd-check): the backward of
torch.nn.functional.scaled_dot_product_attention under SDPBackend.CUDNN_ATTENTION (and
FLASH_ATTENTION), timed as flash3_check bench-bwd times flash3 (CUDA events around each backward call,
W warm-up calls, median of R), for every (batch, heads, n, d) given, fp16 and bf16, causal and not.

  python3 scripts/fa3-sdpa-bwd.py --shape 1,16,8192,64 --shape 2,16,8192,128 [--warmup 5] [--runs 30]

The timed region is out.backward(dO) on a graph kept from one forward (retain_graph): the backend's
backward kernels (cuDNN: its dO·O row sums inside) and autograd's overhead, no forward. FLOPs counted
as 10·b·h·n²·d (the five products of the backward), half that causal. Layout [b, h, n, d].
"""
import importlib.util
import os
import statistics
import sys


def main():
    # The forward's script parses the same arguments (scripts/fa3-sdpa.py).
    spec = importlib.util.spec_from_file_location("fa3_sdpa", os.path.join(os.path.dirname(__file__), "fa3-sdpa.py"))
    forward = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(forward)
    args, shapes = forward.parse_arguments(__doc__, "fa3-sdpa-bwd.py")

    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel

    F = torch.nn.functional
    print(f"torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, {torch.cuda.get_device_name(0)}")
    backends = [("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION)]
    for b, h, n, d in shapes:
        for dtype_name, dtype in (("fp16", torch.float16), ("bf16", torch.bfloat16)):
            g = torch.Generator(device="cuda").manual_seed(7)
            q, k, v, do = (torch.randn(b, h, n, d, device="cuda", dtype=dtype, generator=g) for _ in range(4))
            for causal in (False, True):
                flops = 10.0 * b * h * n * n * d * (0.5 if causal else 1.0)
                for name, backend in backends:
                    mask = 'causal' if causal else 'full'
                    tag = f"sdpa-bwd {name:5} {dtype_name} d{d} batch {b} heads {h} n {n} {mask:6}"
                    try:
                        qq, kk, vv = (t.detach().clone().requires_grad_(True) for t in (q, k, v))
                        with sdpa_kernel(backend):
                            out = F.scaled_dot_product_attention(qq, kk, vv, is_causal=causal)
                            for _ in range(args.warmup):
                                qq.grad = kk.grad = vv.grad = None
                                out.backward(do, retain_graph=True)
                            torch.cuda.synchronize()
                            times = []
                            for _ in range(args.runs):
                                qq.grad = kk.grad = vv.grad = None
                                t0 = torch.cuda.Event(enable_timing=True)
                                t1 = torch.cuda.Event(enable_timing=True)
                                t0.record()
                                out.backward(do, retain_graph=True)
                                t1.record()
                                t1.synchronize()
                                times.append(t0.elapsed_time(t1))
                        med = statistics.median(times)
                        print(f"{tag}  median {med:.4f} ms  min {min(times):.4f}  max {max(times):.4f}  "
                              f"{flops / (med * 1e-3) / 1e12:.1f} TFLOP/s  ({args.runs} runs)", flush=True)
                    except Exception as e:
                        print(f"{tag}  error: {type(e).__name__}: {str(e).splitlines()[0][:160]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
