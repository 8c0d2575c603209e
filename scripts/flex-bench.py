#!/usr/bin/env python3
"""Times PyTorch's FlexAttention on a GPU at the sliding-window and paged-K/V problems that
`iosim validate --window/--page-size` runs, so that iosim's predicted time can be set beside it.

Two families, fp16, forward only:
  window  B=1, H=16, d=64, n in --ns, causal sliding window of W keys in --windows (row r sees keys
          c with r - W < c <= r, sim/core/mask.h's definition with n = n_kv), and the causal mask alone;
          flex_attention under a BlockMask from create_block_mask (128 x 128 blocks), so that the
          blocks outside every row's window are skipped, as iosim's flash2 kernel skips its tiles.
  paged   the same attention with K and V in a paged cache of --page-sizes rows a page, read through a
          block table (torch.nn.attention.experimental._paged_attention.PagedAttention): decode (one
          query, --decode-batch sequences of --decode-n-kv keys, 32 heads) and a causal prefill (B=1,
          H=16, n=4096). PagedAttention places pages in its allocator's order, not iosim's shuffle: the
          bytes are the same, the addresses are not. A page size the installed torch refuses is
          recorded with its error.
Each case: flex_attention compiled (torch.compile) once, then the median of --reps runs after warm-up,
CUDA events, L2 flushed (a 256 MB write) before each run ("cold", as iosim validate's cold time), and the
median without the flush ("warm"). Everything goes to one JSON (GPU, torch version, date, every row),
rewritten after each case. --budget bounds the whole run: what is left is recorded as skipped.

    python3 scripts/flex-bench.py --out results/flex-bench-h100.json
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import time
from pathlib import Path

FLUSH_BYTES = 256 << 20  # larger than any L2 of the GPUs iosim models (H100 50 MB, H200 50 MB)
BLOCK = 128  # FlexAttention's default block size of a BlockMask


def median_ms(torch, fn, reps: int, warmup: int, flush) -> tuple[float, float]:
    """Cold (L2 flushed before each run) and warm median times of fn, ms."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()

    def timed(cold: bool) -> float:
        out = []
        for _ in range(reps):
            if cold:
                flush.zero_()
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            fn()
            e.record()
            e.synchronize()
            out.append(s.elapsed_time(e))
        return statistics.median(out)

    return timed(True), timed(False)


def window_case(torch, flex, n: int, window: int, reps: int, warmup: int, flush) -> dict:
    """flex_attention over B=1, H=16, n = n_kv, d=64 under a causal sliding window (window=0: causal)."""
    from torch.nn.attention.flex_attention import create_block_mask

    b, h, d = 1, 16, 64

    def mask_mod(bi, hi, q_idx, kv_idx):
        causal = kv_idx <= q_idx
        return causal & (q_idx - kv_idx < window) if window > 0 else causal

    mask = create_block_mask(mask_mod, b, h, n, n, device="cuda", BLOCK_SIZE=BLOCK)
    g = torch.Generator(device="cuda").manual_seed(20261206)
    q, k, v = (torch.randn(b, h, n, d, device="cuda", dtype=torch.float16, generator=g) for _ in range(3))
    cold, warm = median_ms(torch, lambda: flex(q, k, v, block_mask=mask), reps, warmup, flush)
    return {"family": "window", "batch": b, "heads": h, "n": n, "n_kv": n, "d": d, "causal": True,
            "window": window, "block_sparsity_pct": float(mask.sparsity()), "cold_ms": cold, "warm_ms": warm}


def paged_case(torch, flex, batch: int, heads: int, n: int, n_kv: int, page: int, reps: int, warmup: int,
               flush) -> dict:
    """flex_attention with K and V in a paged cache through PagedAttention's block table; n = 1: decode
    (no mask), else a causal prefill."""
    from torch.nn.attention.experimental._paged_attention import PagedAttention
    from torch.nn.attention.flex_attention import create_block_mask

    d = 64
    pages_per_seq = (n_kv + page - 1) // page
    paged = PagedAttention(batch * pages_per_seq, page, batch, device="cuda")
    g = torch.Generator(device="cuda").manual_seed(20261206)
    k = torch.randn(batch, heads, n_kv, d, device="cuda", dtype=torch.float16, generator=g)
    v = torch.randn(batch, heads, n_kv, d, device="cuda", dtype=torch.float16, generator=g)
    q = torch.randn(batch, heads, n, d, device="cuda", dtype=torch.float16, generator=g)
    k_cache = torch.zeros(1, heads, batch * pages_per_seq * page, d, device="cuda", dtype=torch.float16)
    v_cache = torch.zeros_like(k_cache)
    for s in range(batch):
        paged.reserve(torch.tensor(s, device="cuda"), torch.tensor(n_kv, device="cuda"))
    batch_idx = torch.arange(batch, device="cuda", dtype=torch.int32)
    input_pos = torch.arange(n_kv, device="cuda", dtype=torch.int32).unsqueeze(0).expand(batch, n_kv)
    paged.assign(batch_idx, input_pos, k, v, k_cache, v_cache)
    offset = n_kv - n

    def mask_mod(bi, hi, q_idx, kv_idx):
        return kv_idx <= q_idx + offset

    logical = create_block_mask(mask_mod, batch, 1, n, n_kv, device="cuda", BLOCK_SIZE=(BLOCK, page))
    physical = paged.convert_logical_block_mask(logical)
    mod = paged.get_mask_mod(mask_mod)
    physical.mask_mod = mod
    cold, warm = median_ms(torch, lambda: flex(q, k_cache, v_cache, block_mask=physical), reps, warmup, flush)
    return {"family": "paged", "batch": batch, "heads": heads, "n": n, "n_kv": n_kv, "d": d,
            "causal": n > 1, "page_size": page, "page_order": "PagedAttention's allocator", "cold_ms": cold,
            "warm_ms": warm}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="the JSON to write")
    ap.add_argument("--ns", type=int, nargs="+", default=[4096, 16384], help="window family's n")
    ap.add_argument("--windows", type=int, nargs="+", default=[256, 1024, 4096],
                    help="window sizes (the causal mask alone is always run too)")
    ap.add_argument("--page-sizes", type=int, nargs="+", default=[16, 64, 256])
    ap.add_argument("--decode-batch", type=int, default=8)
    ap.add_argument("--decode-n-kv", type=int, default=16384)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--budget", type=float, default=150.0, help="seconds for the whole run")
    a = ap.parse_args()

    import torch
    from torch.nn.attention.flex_attention import flex_attention

    flex = torch.compile(flex_attention)
    flush = torch.empty(FLUSH_BYTES // 4, device="cuda", dtype=torch.float32)
    doc = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__, "cuda": torch.version.cuda,
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "reps": a.reps, "warmup": a.warmup, "rows": []}
    cases = [("window", n, w) for n in a.ns for w in [0, *a.windows] if w <= n]
    cases += [("decode", p) for p in a.page_sizes] + [("prefill", p) for p in a.page_sizes]
    t0 = time.monotonic()
    out = Path(a.out)
    for case in cases:
        if time.monotonic() - t0 > a.budget:
            doc["rows"].append({"case": list(case), "skipped": "budget spent"})
            continue
        try:
            if case[0] == "window":
                row = window_case(torch, flex, case[1], case[2], a.reps, a.warmup, flush)
            elif case[0] == "decode":
                row = paged_case(torch, flex, a.decode_batch, 32, 1, a.decode_n_kv, case[1], a.reps, a.warmup, flush)
            else:
                row = paged_case(torch, flex, 1, 16, 4096, 4096, case[1], a.reps, a.warmup, flush)
        except Exception as exc:  # an API this torch lacks, or a page size it refuses: said, not fatal
            row = {"case": list(case), "error": f"{type(exc).__name__}: {exc}"[:400]}
        row["elapsed_s"] = round(time.monotonic() - t0, 1)
        doc["rows"].append(row)
        print(json.dumps(row), flush=True)
        out.write_text(json.dumps(doc, indent=1) + "\n")
    out.write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
