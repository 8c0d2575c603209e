#!/usr/bin/env python3
"""Fits each kernel family's step overhead (kernel_family.h, StepOverhead) to the instructions its
compiled kernels executed.

The SM model issues a step's products, ldmatrix, softmax FP32 work, ex2, shuffles, barriers, loads,
stores and reductions, and these match ncu's counts (scripts/instruction-mix.py). What it does not
derive from the schedule is the rest: integer and address arithmetic, conversions, shared-memory
staging, control. Per warp and step that overhead is fitted, non-negative least squares, as

    per_step + per_score · m·n / lanes + per_row · m·k / lanes + per_column · n·k / lanes
             + per_pipelined_step · [stages ≥ 2]

where m × n × k is the step's first product (S = Q Kᵀ: B_r × B_c × d) and lanes = 32 × warps: a
constant for the loop, terms that grow with the score tile, the row block's and the column block's
elements each thread handles, and a constant for a kernel whose loop keeps K/V tiles in flight (two or
more stages: it issues the copies of tile j + stages − 1, waits for tile j by group count, and
computes each stage's addresses, which a one-stage loop does not; 1 for such a kernel, 0 otherwise). The data are
instruction counts of the compiled kernels
(`--json` files of scripts/instruction-mix.py), never times.

  scripts/fit-instructions.py results/h200-2026-12-01/instruction-mix/mix-d64.json \
      results/h200-2026-12-01/instruction-mix/mix-d128.json
"""
import itertools
import json
import statistics
import sys

import numpy as np

MODEL_KINDS = ["mma", "ldmatrix", "fp32", "ex2", "shuffle", "barrier", "load", "store", "reduce"]
TERMS = ["per_step", "per_score", "per_row", "per_column", "per_pipelined_step"]
FAMILY = {("flash2", "fwd", "iosim"): "fa2-fwd", ("flash2", "bwd", "iosim"): "fa2-bwd",
          ("flash1", "fwd", "iosim"): "fa1-fwd", ("flash1", "bwd", "iosim"): "fa1-bwd",
          ("flash2", "fwd", "pytorch"): "torch-fa2-fwd", ("flash2", "bwd", "pytorch"): "torch-fa2-bwd"}


def features(r):
    lanes = 32 * r["warps"]
    return [1.0, r["br"] * r["bc"] / lanes, r["br"] * r["d"] / lanes, r["bc"] * r["d"] / lanes,
            1.0 if r["stages"] >= 2 else 0.0]


def nnls(a, b):
    """Least squares with every coefficient ≥ 0: the best over the subsets of terms whose unconstrained
    fit has no negative coefficient (five terms: 31 subsets). A term that is zero for every kernel
    (a family without multi-stage variants) gets 0."""
    best = None
    n = a.shape[1]
    for m in range(1, n + 1):
        for subset in itertools.combinations(range(n), m):
            if any(not a[:, j].any() for j in subset):
                continue
            c, *_ = np.linalg.lstsq(a[:, subset], b, rcond=None)
            if (c < 0).any():
                continue
            full = np.zeros(n)
            full[list(subset)] = c
            res = float(np.sum((a @ full - b) ** 2))
            if best is None or res < best[0]:
                best = (res, full)
    return best[1]


def main():
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return
    rows = [r for path in sys.argv[1:] for r in json.load(open(path)) if r["model"]]
    by_family = {}
    for r in rows:
        by_family.setdefault(FAMILY[(r["schedule"], r["pass"], r.get("kernels", "iosim"))], []).append(r)
    for family, rs in sorted(by_family.items()):
        a = np.array([features(r) for r in rs])
        modelled = np.array([sum(r["model"].get(k, 0) for k in MODEL_KINDS) / r["warp_steps"] for r in rs])
        total = np.array([r["measured_total"] / r["warp_steps"] for r in rs])
        c = nnls(a, total - modelled)
        err = np.abs(modelled + a @ c - total) / total
        before = np.abs(modelled - total) / total
        print(f"{family}: {len(rs)} kernels; " + ", ".join(f"{t} {v:.3g}" for t, v in zip(TERMS, c)))
        print(f"  model total vs measured, per warp and step: without the overhead median "
              f"{100 * statistics.median(before):.1f}% (largest {100 * before.max():.1f}%), with it median "
              f"{100 * statistics.median(err):.1f}% (largest {100 * err.max():.1f}%)")


if __name__ == "__main__":
    main()
