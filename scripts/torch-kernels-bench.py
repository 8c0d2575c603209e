#!/usr/bin/env python3
"""PyTorch's eager kernels of standard attention, each timed alone: the rates that iosim's `eager`
schedule prices them at (a config's measured.kernel_rates, docs/configs.md).

PyTorch runs softmax(Q Kᵀ · τ) V, written in torch ops, as cuBLAS GEMMs and four kinds of ATen kernel
(results/h200-2026-12-04-math-profile): an element-wise product by a scalar (the scale, and its
gradient), an element-wise product of two tensors (the softmax backward's dP ∘ P), the softmax
forward and the softmax backward, whose kernel and speed depend on the row length. This script times
each on an fp16 tensor of `total` elements as (rows, row length), for row lengths 256 … 65536 and three
totals, CUDA events, cold L2 (a sweep of 4 × the L2 before each run, outside the events), the median of
--runs after --warmup; and names the kernels each ran (torch.profiler, one extra run). The rate is
(bytes of the tensors read + written) / time, which is what ncu's DRAM counters show those kernels
move with a cold L2 (results/h200-2026-12-04-math-profile).

  python3 scripts/torch-kernels-bench.py --out torch-kernels.json [--runs 10] [--warmup 3]
"""
import argparse
import datetime
import json
import statistics
import sys

ROW_LENGTHS = [256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536]
TOTALS = [1 << 28, 1 << 30, 1 << 32]  # elements; 1 << 30 (2 GiB of fp16) is the one the config takes
# op: (tensors read, tensors written); each tensor `total` fp16 elements
OPS = {"scale": (1, 1), "mul": (2, 1), "softmax_fwd": (1, 1), "softmax_bwd": (2, 1)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=3)
    a = ap.parse_args()
    import torch
    from torch.profiler import ProfilerActivity, profile

    dt = torch.float16
    props = torch.cuda.get_device_properties(0)
    sweep = torch.empty(props.L2_cache_size, dtype=torch.float32, device="cuda")  # 4 x the L2, in bytes

    def fn_of(op, x, y):
        if op == "scale":
            return lambda: x * 0.125
        if op == "mul":
            return lambda: x * y
        if op == "softmax_fwd":
            return lambda: torch.softmax(x, dim=-1)
        return lambda: torch._softmax_backward_data(x, y, -1, dt)

    def timed(fn):
        for _ in range(a.warmup):
            fn()
        torch.cuda.synchronize()
        out = []
        for _ in range(a.runs):
            sweep.sum()
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            fn()
            e.record()
            e.synchronize()
            out.append(s.elapsed_time(e))
        return out

    def kernels(fn):
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            fn()
            torch.cuda.synchronize()
        return sorted({ev.name for ev in prof.events() if ev.device_type == torch.autograd.DeviceType.CUDA})

    records = []
    for total in TOTALS:
        g = torch.Generator(device="cuda").manual_seed(20261204)
        x = torch.randn(total, device="cuda", dtype=dt, generator=g)
        y = torch.softmax(torch.randn(total, device="cuda", dtype=dt, generator=g).view(-1, 1024), -1).view(-1)
        for op, (reads, writes) in OPS.items():
            row_lengths = ROW_LENGTHS if op.startswith("softmax") else [1024]  # element-wise: any shape
            for n in row_lengths:
                rows = total // n
                fn = fn_of(op, x.view(rows, n), y.view(rows, n))
                ms = timed(fn)
                med = statistics.median(ms)
                nbytes = (reads + writes) * total * 2
                rec = {"op": op, "row_length": n, "rows": rows, "elements": total, "bytes": nbytes,
                       "median_ms_cold": med, "min_ms_cold": min(ms), "max_ms_cold": max(ms),
                       "gb_per_s": nbytes / med / 1e6, "runs": a.runs,
                       "kernels": kernels(fn) if total == TOTALS[1] else []}
                records.append(rec)
                print(f"{op:11} total 2^{total.bit_length() - 1} n {n:6}: {med:8.3f} ms  {rec['gb_per_s']:7.0f} GB/s  "
                      + "; ".join(k[:70] for k in rec["kernels"]), flush=True)
        del x, y
        torch.cuda.empty_cache()
    doc = {
        "what": "PyTorch's eager kernels of standard attention, each alone on fp16 (rows, row_length) tensors: "
                "scale x * 0.125, mul x * y, torch.softmax(x, -1), torch._softmax_backward_data(g, y, -1, fp16)",
        "timing": "CUDA events around one call; cold: a sweep of 4 x the L2 before each run, outside the events; "
                  "medians of `runs` after `warmup`; gb_per_s = bytes of the tensors read + written / median",
        "torch": torch.__version__, "cuda": torch.version.cuda, "device": torch.cuda.get_device_name(0),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
        "results": records,
    }
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)
    print(f"wrote {a.out}: {len(records)} timings")
    return 0


if __name__ == "__main__":
    sys.exit(main())
