#!/usr/bin/env python3
"""Fits each kernel family's register model to what ptxas reported for the family's kernels.

The model (sim/schedule/kernel_family.h; the figures in sim/schedule/<name>/families.cpp): registers
per thread = base + per_fragment × the fragment registers a thread holds across a step (its share of
the fp32 accumulators, plus operands kept in registers: FlashAttention-2's Q_i), the latter computed
from the tile as the schedules compute it.
Least squares over every record of results/ptxas-registers-*.json (fp16 and bf16), two parameters
per family; prints them, the fewest fragment registers fitted (the line's range starts there; below it
the model takes at least the fragments themselves) and the largest and median relative error of the fit.

  scripts/fit-registers.py results/ptxas-registers-sm90-cuda13.0.json
"""
import json
import statistics
import sys


def fragments(r):
    """Fragment registers per thread, as the schedules' launch() computes them."""
    br, bc, d, t = r["br"], r["bc"], r["d"], 32 * r["warps"]
    if r["pass"] == "bwd":  # dK, dV live through the loop; then S + dP, or dQ, whichever is larger
        return (2 * bc * d + max(2 * br * bc, br * d)) / t
    held = br * d / 2 if r["schedule"] == "flash2" else 0  # flash2 keeps Q_i as fp16 pairs
    return (br * bc + br * d + held) / t


def fit(xs, ys):
    mx, my = statistics.mean(xs), statistics.mean(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return my - slope * mx, slope


def main():
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return
    recs = json.load(open(sys.argv[1]))["kernels"]
    families = {}
    for r in recs:
        families.setdefault(f'{r["schedule"]}_{r["pass"]}', []).append(r)
    for name, rs in sorted(families.items()):
        xs = [fragments(r) for r in rs]
        ys = [r["registers"] for r in rs]
        base, slope = fit(xs, ys)
        errs = [abs(base + slope * x - y) / y for x, y in zip(xs, ys)]
        print(f"{name:12} kernels {len(rs):3}  base {base:6.1f}  per_fragment {slope:5.3f}  from {min(xs):5.1f}  "
              f"error median {100 * statistics.median(errs):4.1f}%  largest {100 * max(errs):4.1f}%")


if __name__ == "__main__":
    main()
