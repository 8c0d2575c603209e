#!/usr/bin/env python3
"""The L2 probes of issue 37 (scripts/lab/l2-merge-window, scripts/lab/l2-capacity) as tables: reads
their raw output (the probe's own `probe …` line, then ncu's CSV header and row, per run) and prints
Markdown.

  merge window   per stagger: the sectors asked, the L2's read sectors and requests
                 (lts__t_sectors/requests_srcunit_tex_op_read), the L1's sectors from the crossbar
                 (l1tex__m_xbar2l1tex_read_sectors), the share of the asked sectors the L2 counted and
                 the share merged; and the stagger at which the merged share falls to half its
                 lockstep value (interpolated in log stagger between the two rows around it).
  capacity       per footprint and mode: DRAM reads of the profiled (second) launch, the L2 lookups'
                 misses (asked − lookup hits), the fabric's sectors; and, with --replay, the same launch
                 replayed through iosim's L2 model (scripts/lab/l2-capacity/replay.cpp) for each model
                 of MODELS.

  scripts/lab/l2-probes-report.py RESULTS_DIR [--replay BIN] [--capacity-bytes N]

RESULTS_DIR holds l2-merge-window.txt and l2-capacity.txt (results/l2-probes-2026-12-07).
"""
import argparse
import csv
import re
import subprocess
import sys
from pathlib import Path

SECTOR = 32
# The L2 models the capacity probe is replayed through: (ways, policy, partitions).
MODELS = [(16, "lru", 2), (32, "lru", 2), (16, "fifo", 2), (16, "random", 2), (16, "lru", 1), (16, "random", 1)]


def fail(msg):
    print(f"l2-probes-report: {msg}", file=sys.stderr)
    sys.exit(2)


def number(text):
    return float(text.replace(",", ""))


def runs(path):
    """[(probe fields, ncu row)] of one raw file, in its order."""
    if not path.is_file():
        fail(f"{path} is missing")
    out, probe, header = [], None, None
    for line in path.read_text().splitlines():
        if line.startswith("probe "):
            if " failed" in line:
                fail(f"{path}: a run failed: {line}")
            probe = dict(re.findall(r"(\w+)=(-?\d+)", line))
            probe["mode"] = line.split()[1]
        elif line.startswith('"ID"'):
            header = next(csv.reader([line]))
        elif line.startswith('"') and header and probe is not None:
            out.append((probe, dict(zip(header, next(csv.reader([line]))))))
            probe = None
    if not out:
        fail(f"{path} holds no probe run")
    return out


def pct(x):
    return f"{100 * x:.1f}%"


def merge_window(path):
    rows = runs(path)
    print("| buffer | L2 before | mode | stagger (cycles) | start step, median (min–max) ns | sectors asked | "
          "L2 read sectors | L2 read requests | sectors / request | L1 xbar sectors | L2 counted | merged |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    series = {}
    for p, r in rows:
        asked = int(p["sectors_asked"])
        lts = number(r["lts__t_sectors_srcunit_tex_op_read.sum"])
        req = number(r["lts__t_requests_srcunit_tex_op_read.sum"])
        xbar = number(r["l1tex__m_xbar2l1tex_read_sectors.sum"])
        kib = int(p["bytes"]) // 1024
        warm = "warm" if p["warm"] == "1" else "flushed"
        step = f"{p['median']} ({p['min']}–{p['max']})"
        print(f"| {kib} KiB | {warm} | {p['mode']} | {p['stagger_cycles']} | {step} | {asked:,} | {lts:,.0f} | "
              f"{req:,.0f} | {lts / req:.2f} | {xbar:,.0f} | {pct(lts / asked)} | {pct(1 - lts / asked)} |")
        if p["mode"] == "same":
            series.setdefault((kib, warm), []).append((int(p["stagger_cycles"]), int(p["median"]), 1 - lts / asked))
    print()
    for (kib, warm), pts in series.items():
        pts.sort()
        if pts[0][0] != 0 or len(pts) < 3:
            continue
        half = pts[0][2] / 2
        for (c0, s0, m0), (c1, s1, m1) in zip(pts, pts[1:]):
            if m0 >= half > m1 and s0 > 0:
                k = (m0 - half) / (m0 - m1)
                ns = s0 * (s1 / s0) ** k
                ghz = c1 / s1
                print(f"- {kib} KiB, {warm}: merged share in lockstep {pct(pts[0][2])}; half of it at a stagger of "
                      f"{ns:.0f} ns (≈ {ns * ghz:.0f} SM cycles at the {ghz:.2f} GHz that clock64 ÷ globaltimer gives)")
                break


def replay(binary, capacity, ways, policy, parts, mode, mibs):
    """{MiB: (footprint sectors, asked, missed in the partition asked, DRAM read sectors)} of the model."""
    cmd = [binary, str(capacity), str(ways), policy, str(parts), mode] + [str(m) for m in mibs]
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        fail(f"{' '.join(cmd)}: {res.stderr.strip()}")
    return {int(f[1]): tuple(int(x) for x in f[2:]) for f in (line.split() for line in res.stdout.splitlines())}


def capacity(path, binary, cap):
    rows = runs(path)
    modes = {}
    for p, r in rows:
        modes.setdefault(p["mode"], []).append((int(p["footprint_mib"]), int(p["bytes"]), r))
    for mode, pts in modes.items():
        mibs = [m for m, _, _ in pts]
        models = {m: replay(binary, cap, *m, mode, mibs) for m in MODELS} if binary else {}
        print(f"\n`{mode}`: DRAM reads of the second launch (share of the footprint; of the sectors asked), "
              "the L2 lookups that missed (share of the L2's read sectors), fabric sectors (share of the "
              "footprint's sectors)" + (", and iosim's model of the same launch: DRAM reads ÷ asked, "
                                       "lookups missed in the partition asked ÷ asked" if binary else "") + "\n")
        head = "| MiB | DRAM read | ÷ footprint | ÷ asked | L2 lookups missed | fabric sectors |"
        rule = "|---|---|---|---|---|---|"
        for w, pol, parts in models:
            head += f" {w} ways, {pol}, {parts} part. |"
            rule += "---|"
        print(head)
        print(rule)
        for mib, size, r in pts:
            dram = number(r["dram__bytes_read.sum"])
            lts = number(r["lts__t_sectors_srcunit_tex_op_read.sum"])
            hit = number(r["lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"])
            fab = number(r["lts__t_sectors_srcunit_ltcfabric.sum"])
            asked = size // SECTOR * (1 if mode == "own" else 132)
            line = (f"| {mib} | {dram / 1e6:,.1f} MB | {pct(dram / size)} | {pct(dram / SECTOR / asked)} | "
                    f"{pct(1 - hit / lts)} | {pct(fab * SECTOR / size)} |")
            for m in models.values():
                _, ask, miss, dr = m[mib]
                line += f" {pct(dr / ask)}, {pct(miss / ask)} |"
            print(line)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", type=Path)
    ap.add_argument("--replay", help="the built scripts/lab/l2-capacity/replay.cpp")
    ap.add_argument("--capacity-bytes", type=int, default=52428800, help="the modelled L2's size (H100: 50 MiB)")
    a = ap.parse_args()
    for name in ("l2-merge-window.txt", "l2-capacity.txt"):
        if not (a.results / name).is_file():
            fail(f"{a.results / name} is missing")
    if a.replay and not Path(a.replay).is_file():
        fail(f"--replay {a.replay} is not a file")
    if a.capacity_bytes <= 0:
        fail("--capacity-bytes must be positive")
    print("## Merge window\n")
    merge_window(a.results / "l2-merge-window.txt")
    print("\n## Capacity")
    capacity(a.results / "l2-capacity.txt", a.replay, a.capacity_bytes)


if __name__ == "__main__":
    main()
