#!/usr/bin/env python3
"""Launches PyTorch's FlashAttention-2 kernels (scaled_dot_product_attention under
SDPBackend.FLASH_ATTENTION) once per shape and pass between cudaProfilerStart and cudaProfilerStop, for
Nsight Compute to count (run it under `ncu --profile-from-start off`), so that the time model can
describe PyTorch's kernels as their own kernel family, from their own instruction counts. `--impl
math` launches instead the plain matmul-softmax-matmul of scripts/sdpa-bench.py (the same function),
to see which kernels PyTorch runs for it and what each moves.

  ncu --profile-from-start off -k regex:flash --metrics ... \\
      python3 scripts/sdpa-profile.py --shape 2,16,2048,64 --shape 2,16,2048,128 [--dtype fp16]

Each shape runs a warm-up forward and forward + backward first (not profiled), then one profiled
forward (under no_grad) and one profiled forward + backward (from a fixed dO). Prints one line per
profiled launch group, so the log says which ncu rows belong to which shape.
"""
import argparse
import importlib.util
import os
import sys


def shape_arg(text):
    parts = text.split(",")
    if len(parts) != 4 or not all(p.isdigit() and int(p) > 0 for p in parts):
        raise argparse.ArgumentTypeError(f"a shape is batch,heads,n,d of positive integers, not {text!r}")
    return tuple(int(p) for p in parts)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shape", type=shape_arg, action="append", required=True, help="batch,heads,n,d")
    ap.add_argument("--dtype", choices=["fp16", "bf16"], default="fp16")
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--impl", choices=["flash", "math"], default="flash",
                    help="SDPA's flash backend, or the plain matmul-softmax-matmul (sdpa-bench.py's)")
    a = ap.parse_args()
    if a.causal and a.impl == "math":
        ap.error("--causal is the flash backend's: the plain path of sdpa-bench.py has no mask")
    try:
        import torch
    except ImportError as e:
        print(f"sdpa-profile.py: torch unavailable: {e}", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("sdpa-profile.py: no CUDA GPU", file=sys.stderr)
        return 2
    # one definition of both paths: sdpa-bench.py's
    spec = importlib.util.spec_from_file_location(
        "sdpa_bench", os.path.join(os.path.dirname(os.path.abspath(__file__)), "sdpa-bench.py"))
    sdpa_bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sdpa_bench)
    attention_fns = sdpa_bench.attention_fns
    dt = torch.float16 if a.dtype == "fp16" else torch.bfloat16
    cudart = torch.cuda.cudart()
    for b, h, n, d in a.shape:
        g = torch.Generator(device="cuda").manual_seed(20261201)
        q, k, v = (torch.randn(b, h, n, d, device="cuda", dtype=dt, generator=g).requires_grad_(True)
                   for _ in range(3))
        do = torch.randn(b, h, n, d, device="cuda", dtype=dt, generator=g)

        attend = attention_fns(torch, a.causal)[a.impl]

        def fwd():
            with torch.no_grad():
                attend(q, k, v)

        def fwdbwd():
            q.grad = k.grad = v.grad = None
            attend(q, k, v).backward(do)

        for run in (fwd, fwdbwd):
            run()  # warm-up: library loading, workspace allocation
        torch.cuda.synchronize()
        for name, run in (("fwd", fwd), ("fwd+bwd", fwdbwd)):
            cudart.cudaProfilerStart()
            run()
            torch.cuda.synchronize()
            cudart.cudaProfilerStop()
            print(f"profiled: {a.impl} {name} batch {b} heads {h} n {n} d {d} {a.dtype}"
                  f"{' causal' if a.causal else ''}", flush=True)
        q = k = v = do = None  # free the tensors (the closures above are done with them)
        torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
