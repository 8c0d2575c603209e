#!/usr/bin/env python3
"""Ratios (estimate / user CPU) of ab.sh's output: median and within 2x, before and after, and a table."""

import statistics
import sys


def sec(e: str) -> float:
    v, u = e.split()
    return float(v) * (60 if u.startswith("min") else 1)


def main() -> None:
    rows: dict[str, list] = {}
    with open(sys.argv[1], encoding="utf-8") as f:
        for line in f:
            c = line.rstrip("\n").split("\t")
            if len(c) == 4:
                rows.setdefault(c[0], []).append((c[1], c[2], float(c[3]), sec(c[2]) / float(c[3])))
    for which, rs in rows.items():
        r = [x[3] for x in rs]
        within = sum(0.5 <= x <= 2 for x in r)
        print(which, f"median {statistics.median(r):.2f}", f"within 2x {within} of {len(r)}")
    for b, a in zip(rows["before"], rows["after"]):
        print(f"| {b[0]} | {b[1]}, {b[2]:.2f} s, {b[3]:.2f} | {a[1]}, {a[2]:.2f} s, {a[3]:.2f} |")


if __name__ == "__main__":
    main()
