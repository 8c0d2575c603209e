#!/usr/bin/env python3
"""ncu's executed warp instructions per warp and step (results/h200-2026-12-01b/instruction-mix: kernels built
from c44b366, (2, 16, 2048, d), not causal) against the SASS step of c44b366's sources (derive_old.py's part
tables, argv[1]) and today's (cuda/kernels/step-mix-sm90.csv).  Run from the repository root."""
import csv
import glob
import json
import statistics
import sys


def totals(path):
    lines = [line for line in open(path) if line.strip() and not line.startswith("#")]
    return {(r["kernel"], int(r["d"]), r["dtype"], int(r["br"]), int(r["bc"]), int(r["warps"])): int(r["total"])
            for r in csv.DictReader(lines) if r["step"] == "unmasked"}


today = totals("cuda/kernels/step-mix-sm90.csv")
old = {}
for part in glob.glob(f"{sys.argv[1]}/*.csv"):
    old.update(totals(part))
errors = {}
for d in (64, 128):
    for r in json.load(open(f"results/h200-2026-12-01b/instruction-mix/mix-d{d}.json")):
        kernel = f"{r['schedule']}_{r['pass']}"
        if kernel not in ("flash1_fwd", "flash1_bwd", "flash2_bwd"):
            continue
        key = (kernel, r["d"], r["dtype"], r["br"], r["bc"], r["warps"])
        ncu = r["measured_total"] / r["warp_steps"]
        line = [str(key), f"ncu {ncu:.1f}"]
        for name, table in (("c44b366", old), ("today", today)):
            if key in table:
                e = (ncu - table[key]) / ncu
                errors.setdefault((kernel, name), []).append(e)
                line.append(f"{name} {table[key]} ({100 * e:+.1f}%)")
        print(" ".join(line))
for (kernel, name), v in sorted(errors.items()):
    print(kernel, name, len(v), f"median |error| {100 * statistics.median(abs(x) for x in v):.1f}%,",
          f"median signed {100 * statistics.median(v):+.1f}%")
