#!/usr/bin/env python3
"""Times the project's Triton attention kernels (python/iosim/triton) on a GPU over a tile menu.

For each config of the menu (BLOCK_M, BLOCK_N in {32, 64, 128, 256}, num_warps {4, 8}, num_stages {2, 3})
and each (head_dim, causal, grouped) variant the shapes need, in a pool of processes:
  with --records, the CPU compile record of every kernel (iosim.triton.family.compiled_family:
  registers, spills, shared memory, the SASS loop mix of this machine's Triton); the forward launched
  alone (a refusal recorded as the forward's, with Triton's reason); then one correctness check of
  forward and backward against torch SDPA at a small shape (which also JIT-compiles the kernels into
  Triton's disk cache for the timing below).
Then, for each shape, each config whose forward ran: its forward time, and where the check passed the
backward's, with CUDA events, the median of --reps runs after warm-up, L2 flushed (a 256 MB write)
before each run. Everything goes to one JSON (GPU name, torch and triton versions, date, every row),
rewritten after every shape and on SIGTERM. A time budget (--budget, default 400 s) bounds the whole
run: what is left when it runs out is recorded as skipped.

    python3 scripts/triton-sweep.py --out results/triton-sweep-h100.json
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import datetime
import itertools
import json
import os
import signal
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))


def _import_subpackage():
    """iosim.triton alone: it needs none of the compiled module, which this machine may not have built."""
    try:
        import iosim.triton  # noqa: F401
    except ImportError:
        import types
        pkg = types.ModuleType("iosim")
        pkg.__path__ = [str(Path(__file__).resolve().parents[1] / "python" / "iosim")]
        sys.modules["iosim"] = pkg


_import_subpackage()

# (batch, heads, kv_heads, n, d, causal)
SHAPES = [
    (16, 16, 16, 1024, 64, False),
    (8, 16, 16, 4096, 128, True),
    (4, 16, 16, 8192, 64, True),
    (1, 16, 16, 16384, 128, False),
    (1, 32, 8, 32768, 64, True),       # grouped-query attention, 4 query heads a kv head
]
TILES = (32, 64, 128, 256)
WARPS = (4, 8)
STAGES = (2, 3)


def variants(shapes):
    """(d, causal, grouped) the shapes need."""
    return sorted({(d, causal, h != kvh) for _, h, kvh, _, d, causal in shapes})


def prepare(menu_item, d, causal, grouped, dtype_name, with_records):
    """In a worker: the compile records of the four kernels (with --records), then the SDPA check (GPU),
    which also JIT-compiles the kernels into Triton's disk cache for the timing."""
    from iosim.triton.compile import Config
    from iosim.triton.family import PASS_KERNELS, compiled_family
    bm, bn, warps, stages = menu_item
    records = {}
    for k in (PASS_KERNELS["fwd"] + PASS_KERNELS["bwd"]) if with_records else ():
        records[k] = compiled_family(Config(kernel=k, block_m=bm, block_n=bn, head_dim=d, causal=causal,
                                            num_warps=warps, num_stages=stages, dtype=dtype_name))
    errors = {k: r["error"] for k, r in records.items() if r["error"]}
    check = None
    if not errors:
        import torch

        from iosim.triton.launch import Launch, forward
        from iosim.triton.reference import check as sdpa_check
        from iosim.triton.reference import inputs
        dtype = getattr(torch, {"fp16": "float16", "bf16": "bfloat16"}[dtype_name])
        n = max(256, 2 * max(bm, bn))
        # Triton specialises integer arguments by value (1, divisible by 16): the check launches with the
        # sweep shapes' heads (16, and groups of 4), so that the timing loop finds these kernels in the disk
        # cache instead of compiling each config again, one at a time.
        heads, kv_heads = 16, 4 if grouped else 16
        try:  # the forward alone first, so that a refusal says which pass it was
            q, k, v, _ = inputs(1, heads, kv_heads, n, d, dtype)
            forward(q, k, v, causal, Launch(bm, bn, warps, stages))
        except Exception as exc:
            errors["fwd launch"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:300] if str(exc) else ''}"
    if not errors:
        try:
            check = sdpa_check(batch=1, heads=heads, kv_heads=kv_heads, n=n, d=d, causal=causal,
                               dtype=dtype, cfg=Launch(bm, bn, warps, stages))
        except Exception as exc:  # a launch Triton refuses (resources) or a kernel fault
            errors["launch"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:300] if str(exc) else ''}"
    return {"config": {"block_m": bm, "block_n": bn, "num_warps": warps, "num_stages": stages},
            "d": d, "causal": causal, "grouped": grouped, "errors": errors, "check": check, "families": records}


def time_ms(fn, reps, flush):
    import torch
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(2):
        fn()
    times = []
    for _ in range(reps):
        flush.zero_()
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="triton-sweep.json")
    ap.add_argument("--budget", type=float, default=400.0, help="seconds for the whole run")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--dtype", choices=["fp16", "bf16"], default="fp16")
    ap.add_argument("--workers", type=int, default=min(16, os.cpu_count() or 1))
    ap.add_argument("--records", action="store_true",
                    help="also build each kernel's compile record here (the same Triton gives the same "
                         "records on a CPU-only machine: `iosim tiles --kernels triton` builds them there)")
    ap.add_argument("--prepare-share", type=float, default=0.4,
                    help="the share of the budget that compiling and checking may take")
    args = ap.parse_args()
    t0 = time.monotonic()
    left = lambda: args.budget - (time.monotonic() - t0)  # noqa: E731

    import torch
    import triton

    from iosim.triton.launch import Launch, backward, forward
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}[args.dtype]
    menu = list(itertools.product(TILES, TILES, WARPS, STAGES))
    out = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "triton": triton.__version__,
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "dtype": args.dtype, "reps": args.reps, "budget_s": args.budget, "prepared": [], "rows": []}

    def save(note):
        out["elapsed_s"] = time.monotonic() - t0
        out["state"] = note
        tmp = Path(args.out + ".tmp")
        tmp.write_text(json.dumps(out, indent=1))
        tmp.replace(args.out)

    # A timeout's SIGTERM keeps what was measured: the file is rewritten after every shape, and here.
    def on_term(signum, frame):
        save(f"stopped by signal {signum}")
        print(f"stopped by signal {signum}; wrote {args.out}", flush=True)
        os._exit(3)
    signal.signal(signal.SIGTERM, on_term)

    # 1. Compile and check, in parallel, within a share of the budget. Variants interleave so that a cut
    #    budget leaves every variant part of the menu rather than some variants none.
    tasks = [(m, *v) for m in menu for v in variants(SHAPES)]
    print(f"preparing {len(tasks)} (config, variant) pairs on {args.workers} workers", flush=True)
    ctx = __import__("multiprocessing").get_context("spawn")   # CUDA in workers needs spawn
    pool = cf.ProcessPoolExecutor(args.workers, mp_context=ctx)
    try:
        futures = {pool.submit(prepare, m, d, c, g, args.dtype, args.records): (m, d, c, g)
                   for m, d, c, g in tasks}
        try:
            for i, f in enumerate(cf.as_completed(futures, timeout=max(30.0, args.budget * args.prepare_share)),
                                  1):
                m, d, c, g = futures[f]
                try:
                    rec = f.result()
                except Exception as exc:
                    rec = {"config": dict(zip(("block_m", "block_n", "num_warps", "num_stages"), m)), "d": d,
                           "causal": c, "grouped": g, "errors": {"worker": repr(exc)[:300]}, "check": None}
                out["prepared"].append(rec)
                if i % 16 == 0 or i == len(tasks):
                    print(f"  prepared {i}/{len(tasks)} ({time.monotonic() - t0:.0f} s)", flush=True)
        except cf.TimeoutError:
            print("  preparation ran out of its share of the budget; the rest is skipped", flush=True)
    finally:
        workers = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for proc in workers:   # a compile still running is not waited for
            proc.terminate()
    def key(r):
        return tuple(r["config"].values()), r["d"], r["causal"], r["grouped"]
    ready = {key(r) for r in out["prepared"] if not r["errors"] and r["check"] and r["check"]["ok"]}
    # A forward that ran is timed even where the backward did not (the forward's feasibility is its own).
    fwd_ready = ready | {key(r) for r in out["prepared"] if set(r["errors"]) == {"launch"}}
    print(f"{len(ready)} of {len(tasks)} pass compile and the SDPA check, {len(fwd_ready)} run the forward",
          flush=True)

    # 2. Timing.
    last_config_s = 0.0
    flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
    for b, h, kvh, n, d, causal in SHAPES:
        q = torch.randn((b, h, n, d), device="cuda", dtype=dtype)
        k, v = (torch.randn((b, kvh, n, d), device="cuda", dtype=dtype) for _ in range(2))
        do = torch.randn_like(q)
        for m in menu:
            row = {"batch": b, "heads": h, "kv_heads": kvh, "n": n, "d": d, "causal": causal,
                   "config": dict(zip(("block_m", "block_n", "num_warps", "num_stages"), m))}
            if (m, d, causal, h != kvh) not in fwd_ready:
                row["skipped"] = "did not compile or pass the check (see prepared)"
            elif n % m[0] or n % m[1]:
                row["skipped"] = "n is not a multiple of the tiles"
            elif left() < max(5.0, 2 * last_config_s):
                row["skipped"] = "time budget"
            else:
                cfg = Launch(*m)
                started = time.monotonic()
                try:
                    o, lse = forward(q, k, v, causal, cfg)
                    row["fwd_ms"] = time_ms(lambda: forward(q, k, v, causal, cfg), args.reps, flush)
                    flops = 4 * b * h * n * n * d * (0.5 if causal else 1)
                    row["fwd_tflops"] = flops / row["fwd_ms"] / 1e9
                    if (m, d, causal, h != kvh) in ready:
                        row["bwd_ms"] = time_ms(lambda: backward(q, k, v, o, lse, do, causal, cfg), args.reps, flush)
                        row["bwd_tflops"] = 2.5 * flops / row["bwd_ms"] / 1e9
                    else:
                        row["bwd_skipped"] = "the backward did not launch or pass the check (see prepared)"
                except Exception as exc:
                    row["error"] = f"{type(exc).__name__}: {str(exc)[:300]}"
                last_config_s = time.monotonic() - started
            out["rows"].append(row)
        timed = sum(1 for r in out["rows"] if "fwd_ms" in r and r["n"] == n and r["d"] == d)
        print(f"shape b={b} h={h}/{kvh} n={n} d={d} causal={causal}: {timed} configs timed "
              f"({time.monotonic() - t0:.0f} s)", flush=True)
        q = k = v = do = None   # the GPU memory back before the next shape
        save("running")
    save("complete")
    print(f"wrote {args.out} ({out['elapsed_s']:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
