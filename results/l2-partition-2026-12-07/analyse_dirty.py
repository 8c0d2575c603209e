#!/usr/bin/env python3
"""Tables from l2_partition's dirty mode under ncu (dirty-ncu.txt): each step's DRAM sectors.

Usage: analyse_dirty.py DIRTY_NCU_TXT

The probe prints one `step` line per kernel, in launch order, once per ncu application-replay pass;
ncu prints one CSV row per kernel in the same order. Rows are paired with the first pass's steps.
"""

import csv
import re
import sys

STEP = re.compile(r"^step (\d+) kind=(\S+) frac=([\d.]+) bytes=(\d+) sectors=(\d+) event_ms=([\d.]+)")
READ, WRITE, TIME = "dram__bytes_read.sum", "dram__bytes_write.sum", "gpu__time_duration.sum"


def load(path):
    steps, rows, header = {}, [], None
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = STEP.match(line)
            if m:
                steps.setdefault(int(m[1]), (m[2], float(m[3]), int(m[5])))
            elif line.startswith('"ID"'):
                header = next(csv.reader([line]))
            elif line.startswith('"') and line[1:2].isdigit() and header:
                rows.append(dict(zip(header, next(csv.reader([line])))))
    if not rows or len(rows) != len(steps):
        sys.exit(f"analyse_dirty: {len(rows)} ncu rows for {len(steps)} steps in {path}")
    out = []
    for i, r in enumerate(rows):
        kind, frac, sectors = steps[i]
        num = {k: float(r[k].replace(",", "")) for k in (READ, WRITE, TIME)}
        num[READ] /= 32  # bytes to sectors
        num[WRITE] /= 32
        out.append({"kind": kind, "frac": frac, "sectors": sectors, **num})
    return out


def pct(x, whole):
    return f"{100 * x / whole:.1f}%" if whole else "-"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: analyse_dirty.py DIRTY_NCU_TXT")
    s = load(sys.argv[1])
    print("dirty data: DRAM sectors written ÷ sectors written by the write step")
    print("| S ÷ L2 | write | read1 | read2 | next flush | sum | write-step DRAM reads |")
    print("|---|---|---|---|---|---|---|")
    for i, r in enumerate(s):
        if r["kind"] not in ("write", "write_sector") or i + 3 >= len(s):
            continue
        w = r["sectors"]
        parts = [s[i + k][WRITE] for k in range(4)]
        label = f"{r['frac']:.2f}" + (" (one sector a line)" if r["kind"] == "write_sector" else "")
        cells = " | ".join(pct(x, w) for x in parts)
        print(f"| {label} | {cells} | {pct(sum(parts), w)} | {pct(r[READ], w)} |")
    print("\nretention: DRAM sectors read ÷ sectors asked")
    print("| a ÷ L2 | b ÷ L2 | hot | first | stream | re-read |")
    print("|---|---|---|---|---|---|")
    for i, r in enumerate(s):
        if r["kind"] != "reread":
            continue
        hot = s[i - 2]["kind"] == "first_again"
        first = s[i - 3] if hot else s[i - 2]
        stream = s[i - 1]
        print(f"| {r['frac']:.2f} | {stream['frac']:.2f} | {'yes' if hot else 'no'} | "
              f"{pct(first[READ], first['sectors'])} | {pct(stream[READ], stream['sectors'])} | "
              f"{pct(r[READ], r['sectors'])} |")


if __name__ == "__main__":
    main()
