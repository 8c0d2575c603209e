#!/usr/bin/env python3
"""Times PyTorch attention the way iosim measure times its kernels: CUDA events, median of N runs
after warm-up, each run after a sweep of the L2 (cold) and back to back (warm).

One problem (prints one JSON object; the flash backend, forward; --causal for is_causal=True):
  python3 scripts/sdpa-bench.py --batch 1 --heads 16 --n 8192 --d 64 --dtype fp16 [--causal]

Decoding (grouped-query, n queries against a K/V cache of n_kv keys; prints one JSON object with
every SDPA backend that runs it, forward, and the fastest):
  python3 scripts/sdpa-bench.py --batch 8 --heads 32 --kv-heads 8 --n 1 --n-kv 32768 --d 128 --dtype fp16
  Q is [batch, heads, n, d], K and V [batch, kv_heads, n_kv, d], scaled_dot_product_attention(enable_gqa=True)
  under each of SDPBackend FLASH_ATTENTION, EFFICIENT_ATTENTION, CUDNN_ATTENTION and under PyTorch's own choice
  (default); a backend that refuses the shape is listed with its error.

The time sweep (writes one JSON file, prints a table):
  python3 scripts/sdpa-bench.py --sweep --out sdpa-sweep.json [--runs 10] [--max-seconds 240] [--shapes B,H,N,D ...]
  every shape of SWEEP_SHAPES (n from 512 to 32768, d 64 and 128, batch x heads filling the GPU), fp16,
  with two implementations:
    flash: torch.nn.functional.scaled_dot_product_attention under SDPBackend.FLASH_ATTENTION
           (FlashAttention-2 kernels)
    math:  the plain matmul-softmax-matmul, softmax(Q Kᵀ / √d) V written out in torch ops (it holds
           the n × n scores: skipped, and said so, where they would not fit in half the GPU's memory)
  and two passes: fwd (under torch.no_grad) and fwd+bwd (forward, then backward from a fixed dO).
  --kernel-times: the cold time is the sum of each run's kernel durations (torch.profiler) instead.
"""
import argparse
import datetime
import json
import math
import statistics
import sys
import time

# (batch, heads, n, d): batch x heads x n = 262144 rows of Q (16 heads; batch from 32 down to 1,
# then 8 heads at n = 32768), so every shape fills the H200's 132 SMs with many waves of 128-row tiles.
SWEEP_SHAPES = [(max(1, 262144 // (16 * n)), 16 if n <= 16384 else 8, n, d)
                for d in (64, 128) for n in (512, 1024, 2048, 4096, 8192, 16384, 32768)]


def attention_fns(torch, causal=False):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    F = torch.nn.functional

    def flash(q, k, v):
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal)

    def plain(q, k, v):
        s = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(q.shape[-1]))
        return torch.matmul(torch.softmax(s, dim=-1), v)

    return {"flash": flash, "math": plain}


def time_one(torch, fn, shape, dt, mode, runs, warmup, sweep, kv_shape=None, kernel_ms=False):
    """Cold and warm CUDA-event times (ms) of fn on one shape, `mode` fwd or fwd+bwd, and with kernel_ms
    the cold runs' kernels (kernel_times); K and V of `kv_shape` (batch, kv_heads, n_kv, d) where given,
    else of `shape`."""
    b, h, n, d = shape
    g = torch.Generator(device="cuda").manual_seed(20261129)
    grad = mode == "fwd+bwd"
    q = torch.randn(b, h, n, d, device="cuda", dtype=dt, generator=g).requires_grad_(grad)
    k, v = (torch.randn(*(kv_shape or shape), device="cuda", dtype=dt, generator=g).requires_grad_(grad)
            for _ in range(2))
    do = torch.randn(b, h, n, d, device="cuda", dtype=dt, generator=g)

    def run():
        if grad:
            q.grad = k.grad = v.grad = None
            fn(q, k, v).backward(do)
        else:
            with torch.no_grad():
                fn(q, k, v)

    for _ in range(warmup):
        run()
    torch.cuda.synchronize()

    def timed(cold):
        out = []
        for _ in range(runs):
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
    kernels = None
    if kernel_ms:
        try:
            kernels = kernel_times(torch, run, runs, sweep)
        except Exception as exc:  # a profiler that cannot run here: the events' times stand, and say why
            kernels = {"error": f"{type(exc).__name__}: {exc}"[:300]}
    q = k = v = do = None  # free the tensors now (the closures above are done with them)
    return cold, warm, kernels


def kernel_times(torch, run, runs, sweep):
    """Each cold run's kernels as the GPU ran them (CUPTI, through torch.profiler, one profile a run, the
    L2 sweep outside it): the sum of their durations and the span from the first one's start to the last
    one's end, in ms, with the kernels' names. Events around a short call also count the host's dispatch
    before its first kernel; these do not."""
    from torch.profiler import ProfilerActivity, profile

    out = []
    for _ in range(runs):
        sweep.sum()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            run()
            torch.cuda.synchronize()
        ks = sorted((e for e in prof.events() if "CUDA" in str(e.device_type) and e.time_range.elapsed_us() > 0),
                    key=lambda e: e.time_range.start)
        if ks:
            out.append({"sum_ms": sum(e.time_range.elapsed_us() for e in ks) / 1e3,
                        "span_ms": (ks[-1].time_range.end - ks[0].time_range.start) / 1e3,
                        "kernels": [e.name[:120] for e in ks]})
    return out


def flops(shape, mode):
    b, h, n, d = shape
    fwd = 4.0 * b * h * n * n * d  # Q Kᵀ and P V
    return fwd if mode == "fwd" else fwd * 3.5  # the backward's five products: 2.5 x the forward's


def math_bytes(shape, elem=2):
    """Peak memory of the plain version with its backward: scores, probabilities and their
    gradients, n x n each (an estimate, to skip shapes that cannot fit, never a reported figure)."""
    b, h, n, _ = shape
    return 4 * b * h * n * n * elem


def sweep_main(a, torch):
    dt = torch.float16
    fns = attention_fns(torch)
    props = torch.cuda.get_device_properties(0)
    sweep = torch.empty(props.L2_cache_size, dtype=torch.float32, device="cuda")  # 4 x the L2, in bytes
    t_end = time.monotonic() + a.max_seconds
    records = []
    shapes = a.shapes or SWEEP_SHAPES
    for shape in shapes:
        for impl in ("flash", "math"):
            for mode in ("fwd", "fwd+bwd"):
                rec = {"impl": impl, "mode": mode, "batch": shape[0], "heads": shape[1], "n": shape[2],
                       "d": shape[3], "dtype": "fp16"}
                if time.monotonic() > t_end:
                    rec["skipped"] = f"time budget of {a.max_seconds} s spent"
                elif impl == "math" and math_bytes(shape) > props.total_memory // 2:
                    rec["skipped"] = (f"the n x n matrices need about {math_bytes(shape) >> 30} GiB, more than half "
                                      f"of the GPU's {props.total_memory >> 30} GiB")
                else:
                    try:
                        cold, warm, kernels = time_one(torch, fns[impl], shape, dt, mode, a.runs, a.warmup,
                                                       sweep, kernel_ms=a.kernel_times)
                        mc, mw = statistics.median(cold), statistics.median(warm)
                        rec.update({"median_ms_cold": mc, "median_ms_warm": mw, "min_ms_cold": min(cold),
                                    "min_ms_warm": min(warm), "runs": a.runs,
                                    "tflops_cold": flops(shape, mode) / mc / 1e9})
                        if isinstance(kernels, dict):
                            rec["kernel_times_error"] = kernels["error"]
                        elif kernels:
                            rec.update({"events_median_ms_cold": mc,
                                        "median_ms_cold": statistics.median(r["sum_ms"] for r in kernels),
                                        "kernel_span_median_ms_cold": statistics.median(r["span_ms"] for r in kernels),
                                        "kernels": kernels[0]["kernels"]})
                    except RuntimeError as e:  # out of memory, or no flash kernel for this shape
                        rec["skipped"] = f"{type(e).__name__}: {str(e).splitlines()[0]}"
                        torch.cuda.empty_cache()
                records.append(rec)
                print(f"{impl:5} {mode:7} B={shape[0]:3} H={shape[1]:2} n={shape[2]:5} d={shape[3]:3}: "
                      + (f"{rec['median_ms_cold']:.4g} ms cold, {rec['median_ms_warm']:.4g} ms warm"
                         if "skipped" not in rec else "skipped: " + rec["skipped"]), flush=True)
    doc = {
        "what": "PyTorch attention, fp16: scaled_dot_product_attention with SDPBackend.FLASH_ATTENTION (flash) "
                "and the plain matmul-softmax-matmul (math); fwd under no_grad, fwd+bwd from a fixed dO",
        "timing": ("cold: the sum of each run's kernel durations (CUPTI, torch.profiler), median of `runs`, an "
                   "L2 sweep before each; events_median_ms_cold: CUDA events around the same kind of run"
                   if a.kernel_times else
                   "CUDA events around each run; cold: an L2 sweep before each run, outside the events; warm: back "
                   "to back; medians of `runs` after `warmup`"),
        "torch": torch.__version__, "cuda": torch.version.cuda, "device": torch.cuda.get_device_name(0),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
        "runs": a.runs, "warmup": a.warmup,
        "shapes": [{"batch": b, "heads": h, "n": n, "d": d} for b, h, n, d in shapes],
        "results": records,
    }
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)
    print(f"wrote {a.out}: {sum('skipped' not in r for r in records)} of {len(records)} measured")
    return 0


def single_main(a, torch):
    dt = torch.float16 if a.dtype == "fp16" else torch.bfloat16
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    sweep = torch.empty(4 * l2 // 4, dtype=torch.float32, device="cuda")
    shape = (a.batch, a.heads, a.n, a.d)
    cold, warm, _ = time_one(torch, attention_fns(torch, a.causal)["flash"], shape, dt, "fwd", a.runs, a.warmup, sweep)
    med_c, med_w = statistics.median(cold), statistics.median(warm)
    work = flops(shape, "fwd") / (2 if a.causal else 1)  # causal: about half the scores are computed
    print(json.dumps({
        "what": "torch scaled_dot_product_attention, SDPBackend.FLASH_ATTENTION",
        "torch": torch.__version__, "device": torch.cuda.get_device_name(0),
        "batch": a.batch, "heads": a.heads, "n": a.n, "d": a.d, "dtype": a.dtype, "causal": a.causal,
        "runs": a.runs, "median_ms_cold": med_c, "median_ms_warm": med_w,
        "tflops_cold": work / med_c / 1e9, "tflops_warm": work / med_w / 1e9,
    }))
    return 0


def decode_main(a, torch):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    F = torch.nn.functional
    dt = torch.float16 if a.dtype == "fp16" else torch.bfloat16
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    sweep = torch.empty(4 * l2 // 4, dtype=torch.float32, device="cuda")
    shape = (a.batch, a.heads, a.n, a.d)
    kv_shape = (a.batch, a.kv_heads, a.n_kv, a.d)

    def under(backend):
        def fn(q, k, v):
            if backend is None:
                return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
        return fn

    results = {}
    for label, backend in (("default", None), ("flash", SDPBackend.FLASH_ATTENTION),
                           ("efficient", SDPBackend.EFFICIENT_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION)):
        try:
            cold, warm, _ = time_one(torch, under(backend), shape, dt, "fwd", a.runs, a.warmup, sweep, kv_shape)
            results[label] = {"median_ms_cold": statistics.median(cold), "median_ms_warm": statistics.median(warm),
                              "min_ms_cold": min(cold), "min_ms_warm": min(warm)}
        except (RuntimeError, ValueError, TypeError) as e:  # this backend does not take the shape
            results[label] = {"skipped": f"{type(e).__name__}: {(str(e).splitlines() or [''])[0]}"}
            torch.cuda.empty_cache()
    timed = {k: r for k, r in results.items() if "skipped" not in r}
    best = min(timed, key=lambda k: timed[k]["median_ms_cold"]) if timed else None
    print(json.dumps({
        "what": "torch scaled_dot_product_attention(enable_gqa=True), decoding, forward, per SDPA backend",
        "torch": torch.__version__, "device": torch.cuda.get_device_name(0),
        "batch": a.batch, "heads": a.heads, "kv_heads": a.kv_heads, "n": a.n, "n_kv": a.n_kv, "d": a.d,
        "dtype": a.dtype, "runs": a.runs, "backends": results, "fastest": best,
        "median_ms_cold": timed[best]["median_ms_cold"] if best else None,
        "median_ms_warm": timed[best]["median_ms_warm"] if best else None,
    }))
    return 0 if best else 1


def shape_arg(text):
    """B,H,N,D as four positive integers."""
    try:
        shape = tuple(int(x) for x in text.split(","))
    except ValueError:
        shape = ()
    if len(shape) != 4 or min(shape) < 1:
        raise argparse.ArgumentTypeError(f"a shape is B,H,N,D of four positive integers, not '{text}'")
    return shape


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--n", type=int, default=8192)
    ap.add_argument("--d", type=int, default=64)
    ap.add_argument("--kv-heads", type=int, default=None, help="decoding: K/V heads (dividing --heads)")
    ap.add_argument("--n-kv", type=int, default=None, help="decoding: keys per head (default --n)")
    ap.add_argument("--dtype", choices=["fp16", "bf16"], default="fp16")
    ap.add_argument("--causal", action="store_true", help="one problem: is_causal=True (the upper-left mask)")
    ap.add_argument("--runs", type=int, default=None, help="timed runs, cold and warm each (default 50; sweep 10)")
    ap.add_argument("--warmup", type=int, default=None, help="runs before timing (default 10; sweep 3)")
    ap.add_argument("--sweep", action="store_true", help="every shape of SWEEP_SHAPES, flash and math, fwd and fwd+bwd")
    ap.add_argument("--out", default="sdpa-sweep.json", help="the sweep's JSON file")
    ap.add_argument("--shapes", nargs="+", type=shape_arg, default=None, metavar="B,H,N,D",
                    help="the sweep's shapes in place of SWEEP_SHAPES (e.g. small grids: 1,1,8192,64)")
    ap.add_argument("--max-seconds", type=float, default=240, help="the sweep's time budget; what is left is skipped")
    ap.add_argument("--kernel-times", action="store_true",
                    help="the sweep's cold time is the sum of each run's kernel durations (torch.profiler), not CUDA "
                         "events around the call, which also count the host's dispatch of a short call")
    a = ap.parse_args()
    for name, v in (("--runs", a.runs), ("--warmup", a.warmup)):
        if v is not None and v < (1 if name == "--runs" else 0):
            print(f"sdpa-bench.py: {name} must be {'positive' if name == '--runs' else 'at least 0'}, not {v}",
                  file=sys.stderr)
            return 2
    decode = a.kv_heads is not None or a.n_kv is not None
    if decode:
        a.kv_heads = a.heads if a.kv_heads is None else a.kv_heads
        a.n_kv = a.n if a.n_kv is None else a.n_kv
        if a.sweep or a.causal or min(a.batch, a.heads, a.kv_heads, a.n, a.n_kv, a.d) < 1 or a.heads % a.kv_heads != 0:
            print("sdpa-bench.py: decoding takes positive sizes with --kv-heads dividing --heads, "
                  "and no --sweep or --causal",
                  file=sys.stderr)
            return 2
    if a.runs is None:
        a.runs = 10 if a.sweep else 50
    if a.warmup is None:
        a.warmup = 3 if a.sweep else 10
    try:
        import torch
        import torch.nn.attention  # noqa: F401  (SDPBackend, sdpa_kernel)
    except ImportError as e:  # no torch here: say so, do not pretend
        print(json.dumps({"error": f"torch unavailable: {e}"}))
        return 2
    if not torch.cuda.is_available():
        print(json.dumps({"error": "no CUDA GPU"}))
        return 2
    if decode:
        return decode_main(a, torch)
    return sweep_main(a, torch) if a.sweep else single_main(a, torch)


if __name__ == "__main__":
    sys.exit(main())
