#!/usr/bin/env python3
"""flashdecode_combine's shared-memory wavefronts in closed form (cuda/kernels/flashdecode.cuh), set against
what the model's split-kernel count leaves of ncu's measurement (scripts/wavefront-validation.py --json-out).

Per block of the combine (rows_c = min(64, rows - q0) rows, s splits): each row's thread stores its s
weights w_s[row * s + k], then loads and stores them again (x 1 / sum): 3 instructions a split per warp of
row threads; the output loop's warp-iterations (32 of the rows_c * d / 4 quads each) load one weight per
split. An instruction's wavefronts: the most distinct 4-byte words one bank serves it.

  combine_residual.py h100-06-quick.json h200-01b-01d.json ...
"""
import json
import sys


def wavefronts(words):
    per_bank = {}
    for w in set(words):
        per_bank[w % 32] = per_bank.get(w % 32, 0) + 1
    return max(per_bank.values(), default=0)


def combine(problem, tile, schedule):
    splits = tile["splits"]
    if splits <= 1:
        return 0
    d, n, heads = problem["d"], problem["n"], problem["heads"]
    kv_heads = problem.get("kv_heads", heads)
    packed = schedule == "flashdecode"
    rows = (heads // kv_heads) * n if packed else n
    grid_heads = problem["batch"] * (kv_heads if packed else heads)
    total = 0
    for q0 in range(0, rows, 64):
        rows_c = min(64, rows - q0)
        for w0 in range(0, rows_c, 32):
            threads = range(w0, min(rows_c, w0 + 32))
            for k in range(splits):
                total += 3 * wavefronts(t * splits + k for t in threads)
        quads = rows_c * (d // 4)
        for e0 in range(0, quads, 32):
            lanes = range(e0, min(quads, e0 + 32))
            for k in range(splits):
                total += wavefronts((e // (d // 4)) * splits + k for e in lanes)
    return total * grid_heads


def main():
    rows = []
    for f in sys.argv[1:]:
        for k in json.load(open(f)):
            c = combine(k["problem"], k["tile"], k["schedule"])
            rows.append((k["measured"] - k["after"] - c, k))
    exact = sum(1 for r, _ in rows if abs(r) < 0.5)
    print(f"{exact} of {len(rows)} runs: measured = the model's split count + the combine's closed form, exactly")
    for r, k in rows:
        if abs(r) >= 0.5:
            print(f"off by {r:+.0f}: {k['schedule']} {k['problem']} {k['tile']}")


if __name__ == "__main__":
    main()
