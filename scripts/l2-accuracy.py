#!/usr/bin/env python3
"""The fast L2 replay against the exact one: every counter of every kernel, cold and warm (a kernel's
DRAM reads and writes as a share of its DRAM bytes, reads and writes: what the sample's error bounds).

Runs `iosim --predict -f json` twice per problem (--l2 fast, --l2 exact), prints one row per problem
with the largest relative error over its counters and both timings, then per counter the largest and
the median error over the grid, as a Markdown table (docs/performance.md).

  scripts/l2-accuracy.py [--iosim build/iosim] [--quick] [--jobs 2] [--fast-flag=--l2-skip-rounds]
                         [--exact-cache DIR] [--only naive]

--exact-cache keeps each problem's exact run in DIR (the exact replay does not change with the fast
one's flags: a later run reads it back; its timing is the recorded one); --only keeps the problems
whose label contains the text.
"""
import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

COUNTERS = [
    ("lts__t_sectors_srcunit_tex_op_read", "L2 read sectors"),
    ("lts__t_sectors_srcunit_tex_op_write", "L2 write sectors"),
    ("lts__t_sectors_srcunit_tex_op_red", "L2 reduction sectors"),
    ("lts__t_sectors_srcunit_ltcfabric_op_read", "fabric read sectors"),
    ("dram__bytes_read", "DRAM read bytes"),
    ("dram__bytes_write", "DRAM write bytes"),
]


def grid(quick):
    """(schedule, gpu, batch, heads, kv_heads, n, d, pass, causal[, n_kv]): 68 problems, or 9 with --quick."""
    gpus = ["a100", "h100", "h200"] if not quick else ["h100"]
    out = []
    for gpu, (b, h, kvh, n, d), ps, causal in itertools.product(
            gpus, [(1, 16, 16, 2048, 64), (2, 8, 8, 1024, 128)], ["fwd", "bwd"], [False, True]):
        out.append(("naive", gpu, b, h, kvh, n, d, ps, causal))
    for gpu, ps in itertools.product(gpus, ["fwd", "bwd"]):
        out.append(("flash1", gpu, 1, 16, 16, 4096, 64, ps, False))
    for gpu, (b, h, kvh, n, d), ps, causal in itertools.product(
            gpus, [(1, 16, 16, 4096, 64), (1, 32, 8, 4096, 128)], ["fwd", "bwd"], [False, True]):
        out.append(("flash2", gpu, b, h, kvh, n, d, ps, causal))
    for ps, causal in itertools.product(["fwd", "bwd"], [False, True]):  # large enough to sample sets and skip heads
        out.append(("flash2", "h100", 1, 32, 32, 8192, 64, ps, causal))
    for gpu, (h, kvh, nkv) in itertools.product(gpus, [(32, 8, 16384), (32, 32, 8192)]):
        out.append(("flashdecode", gpu, 4, h, kvh, 1, 128, "fwd", False, nkv))
    # Heads shorter than a wave (128 blocks a head, 264 at once on the h200), and the speed benchmark's
    # naive problem (docs/performance.md).
    for ps, causal in [("fwd", False), ("bwd", True), ("fwd", True)]:
        out.append(("flash2", "h200", 1, 16, 16, 16384, 128, ps, causal))
    out.append(("naive", "h200", 1, 16, 16, 8192, 64, "fwd", False))
    return out[::8] if quick else out


def flags(p):
    sched, gpu, b, h, kvh, n, d, ps, causal = p[:9]
    f = ["--config", gpu, "--schedule", sched, "--batch", str(b), "--heads", str(h), "--kv-heads", str(kvh),
         "--n", str(n), "--d", str(d), "--pass", ps]
    if len(p) > 9:
        f += ["--n-kv", str(p[9])]
    if causal:
        f.append("--causal")
    return f


def label(p):
    sched, gpu, b, h, kvh, n, d, ps, causal = p[:9]
    extra = f" n_kv={p[9]}" if len(p) > 9 else ""
    return f"{sched} {ps} {gpu} b{b} h{h}/{kvh} n{n}{extra} d{d}{' causal' if causal else ''}"


def run(iosim, p, mode, extra=()):
    t = time.monotonic()
    out = subprocess.run([iosim, *flags(p), "--predict", "--l2", mode, *extra, "-f", "json", "--max-time", "2h"],
                         check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)["runs"][0]["schedules"][0]["predicted"], time.monotonic() - t


DRAM = ("dram__bytes_read", "dram__bytes_write")


def values(pred):
    """(key, name, value, scale) of every counter: per kernel, cold and warm, and the dirty bytes at the
    end; scale is what an error is relative to (None: the counter's own exact value). The dirty bytes are
    relative to themselves and the last kernel's DRAM bytes: the flush after it writes them back."""
    for temp in ("cold", "warm"):
        for k in pred[temp]["kernels"]:
            for key, _ in COUNTERS:
                yield key, f"{temp}.{k['name']}.{key}", k[key], sum(k[d] for d in DRAM) if key in DRAM else None
        dirty = pred[temp]["dirty_at_end_bytes"]
        last = pred[temp]["kernels"][-1]
        yield "dirty_at_end_bytes", f"{temp}.dirty_at_end_bytes", dirty, dirty + sum(last[d] for d in DRAM)


def error(fast, exact, scale=None):
    scale = exact if scale is None else scale
    if scale == 0:
        return 0.0 if fast == exact else float("inf")
    return abs(fast - exact) / scale


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iosim", default="build/iosim")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--fast-flag", action="append", default=[], help="a further flag of the fast runs")
    ap.add_argument("--exact-cache", help="a folder keeping the exact runs")
    ap.add_argument("--only", action="append", default=[], help="problems whose label contains this")
    a = ap.parse_args()
    problems = [p for p in grid(a.quick) if not a.only or any(o in label(p) for o in a.only)]

    def exact_run(p):
        if not a.exact_cache:
            return run(a.iosim, p, "exact")
        path = os.path.join(a.exact_cache, label(p).replace(" ", "_").replace("/", "-") + ".json")
        if os.path.exists(path):
            with open(path) as f:
                got = json.load(f)
            return got["predicted"], got["seconds"]
        pred, t = run(a.iosim, p, "exact")
        os.makedirs(a.exact_cache, exist_ok=True)
        with open(path, "w") as f:
            json.dump({"predicted": pred, "seconds": t}, f)
        return pred, t

    def one(p):
        fast, tf = run(a.iosim, p, "fast", a.fast_flag)
        exact, te = exact_run(p)
        return p, fast, tf, exact, te

    per_counter = {key: [] for key, _ in COUNTERS + [("dirty_at_end_bytes", "")]}
    rows = []
    with ThreadPoolExecutor(a.jobs) as pool:
        for p, fast, tf, exact, te in pool.map(one, problems):
            worst, where = 0.0, ""
            for (key, name, fv, _), (_, _, ev, scale) in zip(values(fast), values(exact)):
                e = error(fv, ev, scale)
                per_counter[key].append(e)
                if e > worst:
                    worst, where = e, name
            stride = fast["cold"]["l2_sample_stride"]
            rows.append((label(p), worst, where, stride, tf, te))
            print(f"{label(p):55s} max {100 * worst:6.3f}% ({where}) stride {stride:4d} "
                  f"fast {tf:6.2f} s exact {te:7.2f} s",
                  file=sys.stderr, flush=True)
    print(f"{len(rows)} problems; per counter (cold and warm, every kernel), error = |fast − exact| / exact "
          "(DRAM bytes: / the kernel's exact DRAM bytes, reads and writes; dirty at end: / itself and the last "
          "kernel's exact DRAM bytes)\n")
    print("| counter | max error | median error |\n|---|---|---|")
    names = dict(COUNTERS + [("dirty_at_end_bytes", "dirty at end")])
    for key, errs in per_counter.items():
        print(f"| {names[key]} (`{key}`) | {100 * max(errs):.3f}% | {100 * statistics.median(errs):.4f}% |")
    tf = sorted(r[4] for r in rows)
    te = sorted(r[5] for r in rows)
    print(f"\nwhole process per problem: fast median {statistics.median(tf):.2f} s, max {tf[-1]:.2f} s; "
          f"exact median {statistics.median(te):.2f} s, max {te[-1]:.2f} s\n")
    print("| problem | max error | where | stride | fast s | exact s |\n|---|---|---|---|---|---|")
    for problem, w, where, stride, f_, e_ in rows:
        print(f"| {problem} | {100 * w:.3f}% | {where} | {stride} | {f_:.2f} | {e_:.2f} |")
    return 0 if all(r[1] <= 0.01 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
