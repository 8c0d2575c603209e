#!/usr/bin/env python3
"""Tables for results/l2-lockstep-2026-12-07.md: the L2 capacity probe's `shared` readers with their
stagger held (`lock`) and free, on the H100 and in iosim's L2 model (replay_order.cpp's output).

Usage: analyse.py LOCKSTEP_TXT CAPACITY_APP_TXT MODEL_DIR
  LOCKSTEP_TXT      results/h100-2026-12-07d/l2-lockstep/l2-lockstep.txt (lock: ncu rows; free: stamps)
  CAPACITY_APP_TXT  results/l2-probes-2026-12-07/l2-capacity-app.txt (the free order's ncu rows)
  MODEL_DIR         this folder: model-lock-group*.txt, model-free-jitter*.txt
"""

import bisect
import csv
import pathlib
import statistics
import sys

BLOCKS = 132
THREADS = 512
STAMPS = 32
SECTOR = 32
MIB = 1 << 20


def fail(what):
    print(f"analyse.py: {what}", file=sys.stderr)
    sys.exit(2)


def ncu_rows(path, mode):
    """{MiB: {metric: value}} of the ncu CSV rows that follow 'probe MODE' lines."""
    rows, header, mib, current = {}, None, None, None
    for line in pathlib.Path(path).read_text().splitlines():
        if line.startswith("probe "):
            current = line.split()[1]
            mib = int(line.split("footprint_mib=")[1].split()[0])
        elif line.startswith('"ID"'):
            header = next(csv.reader([line]))
        elif line.startswith('"0"') and current == mode and header:
            raw = dict(zip(header, next(csv.reader([line]))))
            rows[mib] = {k: float(v.replace(",", "")) for k, v in raw.items() if k.endswith(".sum")}
    return rows


def h100_ratios(row, mib):
    """The ratios of one ncu row; data = the sectors the probe's loads ask (132 passes of F)."""
    data = BLOCKS * mib * MIB / SECTOR
    asked = row["lts__t_sectors_srcunit_tex_op_read.sum"]
    hit = row["lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"]
    return {
        "dram": row["dram__bytes_read.sum"] / SECTOR / data,
        "asked": asked / data,
        "hit": hit / asked,
        "near_miss": (asked - hit) / data,
        "fabric": row["lts__t_sectors_srcunit_ltcfabric.sum"] / (mib * MIB / SECTOR),
        "ms": row["gpu__time_duration.sum"] / 1e6,
    }


def model_rows(path):
    """{MiB: ratios} and {MiB: {(block, k): cycle}} of one replay_order output."""
    rows, stamps, pending = {}, {}, {}
    for line in pathlib.Path(path).read_text().splitlines():
        f = line.split()
        if f[0] == "stamp":
            pending[(int(f[1]), int(f[2]))] = float(f[3])
            continue
        mib, footprint, asked, miss, dram, fabric = (int(x) for x in f)
        data = BLOCKS * footprint
        if asked != data:
            fail(f"{path}: {mib} MiB asked {asked} sectors, not 132 x {footprint}")
        rows[mib] = {"dram": dram / data, "asked": 1.0, "hit": 1 - miss / asked, "near_miss": miss / data,
                     "fabric": fabric / footprint, "ms": None}
        if pending:
            stamps[mib], pending = pending, {}
    return rows, stamps


def h100_stamps(path):
    stamps, mib = {}, None
    for line in pathlib.Path(path).read_text().splitlines():
        if line.startswith("probe free"):
            mib = int(line.split("footprint_mib=")[1].split()[0])
            stamps[mib] = {}
        elif line.startswith("stamp"):
            _, b, k, t = line.split()
            stamps[mib][(int(b), int(k))] = int(t)  # ~1.8e18 ns: as a float it would lose 8 bits
    t0 = {mib: min(s.values()) for mib, s in stamps.items()}
    return {mib: {key: float(t - t0[mib]) for key, t in s.items()} for mib, s in stamps.items()}


def stagger(stamps, mib):
    """How the free readers stand against each other, in rounds (8 KiB of one block): the lockstep
    gap (F / 132 in rounds), and at 50% and 90% of the median block's stamped time the gaps between
    neighbouring blocks' positions on the footprint (offset + rounds done): the median gap, how many
    of the 132 are under one round, and the largest group of blocks each within one round of the next;
    and the spread of the blocks' time per round (slowest / fastest)."""
    rounds = mib * MIB // 16 // THREADS
    every = max(rounds // STAMPS, 1)
    t0 = min(stamps.values())
    times = {b: [stamps[(b, k)] - t0 for k in range(STAMPS)] for b in range(BLOCKS)}
    per_round = [(ts[-1] - ts[0]) / ((STAMPS - 1) * every) for ts in times.values()]

    def done(b, t):
        ts = times[b]
        i = bisect.bisect_right(ts, t) - 1
        if i < 0:
            return 0.0
        if i >= STAMPS - 1:
            return min(rounds, (STAMPS - 1) * every + (t - ts[-1]) / per_round[b])
        return every * (i + (t - ts[i]) / (ts[i + 1] - ts[i]))

    end = statistics.median(ts[-1] for ts in times.values())
    out = {"lockstep_gap": rounds / BLOCKS, "start_spread": max(ts[0] for ts in times.values()),
           "per_round_spread": max(per_round) / min(per_round)}
    for frac in (0.5, 0.9):
        pos = sorted((rounds * b / BLOCKS + done(b, frac * end)) % rounds for b in range(BLOCKS))
        gaps = [(pos[(i + 1) % BLOCKS] - pos[i]) % rounds for i in range(BLOCKS)]
        run, best = 1, 1
        start = max(range(BLOCKS), key=lambda i: gaps[i])  # begin after the widest gap
        for i in range(1, BLOCKS):
            run = run + 1 if gaps[(start + i) % BLOCKS] < 1 else 1
            best = max(best, run)
        out[frac] = (statistics.median(gaps), sum(g < 1 for g in gaps), best)
    return out


def pct(x):
    return "–" if x is None else f"{100 * x:.1f}%"


def main():
    if len(sys.argv) != 4:
        fail("usage: analyse.py LOCKSTEP_TXT CAPACITY_APP_TXT MODEL_DIR")
    lockstep, capacity, model_dir = (pathlib.Path(a) for a in sys.argv[1:])
    for p in (lockstep, capacity, model_dir):
        if not p.exists():
            fail(f"{p} does not exist")
    lock = {m: h100_ratios(r, m) for m, r in ncu_rows(lockstep, "lock").items()}
    free = {m: h100_ratios(r, m) for m, r in ncu_rows(capacity, "shared").items()}
    if not lock or not free:
        fail("no ncu rows found")
    series = [("**H100, stagger held (lock)**", lock), ("**H100, free** (capacity probe, 08:39 UTC)", free)]
    model_stamps = {}
    for p in sorted(model_dir.glob("model-*.txt")):
        rows, st = model_rows(p)
        name = p.stem.removeprefix("model-")
        series.append((f"model, {name}", rows))
        if st:
            model_stamps[name] = st
    mibs = sorted(lock)
    for key, title in (("dram", "DRAM read ÷ sectors the loads ask (= DRAM bytes per pass ÷ F)"),
                       ("near_miss", "lookups missed in the asking partition ÷ sectors the loads ask"),
                       ("hit", "near lookup hits ÷ L2 read sectors (ncu's own ratio)"),
                       ("fabric", "fabric sectors ÷ footprint sectors"),
                       ("asked", "L2 read sectors ÷ sectors the loads ask")):
        print(f"\n**{title}**\n")
        print("| order | " + " | ".join(f"{m} MiB" for m in mibs) + " |")
        print("|---|" + "---|" * len(mibs))
        for name, rows in series:
            print(f"| {name} | " + " | ".join(pct(rows[m][key]) if m in rows else "–" for m in mibs) + " |")
    print("\n**kernel time (ms, ncu gpu__time_duration)**\n")
    print("| order | " + " | ".join(f"{m} MiB" for m in mibs) + " |")
    print("|---|" + "---|" * len(mibs))
    for name, rows in series[:2]:
        print(f"| {name} | " + " | ".join(f"{rows[m]['ms']:.2f}" if m in rows else "–" for m in mibs) + " |")
    print("\n**stagger of the free readers** (gaps in rounds of 8 KiB; cells: median gap / gaps < 1 round /"
          " largest bunch)\n")
    print("| source | MiB | lockstep gap | start spread | time per round, slowest ÷ fastest | at 50% | at 90% |")
    print("|---|---|---|---|---|---|---|")
    sources = [("H100 (ns)", h100_stamps(lockstep))] + [(f"model, {n} (cycles)", s) for n, s in model_stamps.items()]
    for name, by_mib in sources:
        for mib in sorted(by_mib):
            s = stagger(by_mib[mib], mib)
            cells = [f"{s[f][0]:.1f} / {s[f][1]} / {s[f][2]}" for f in (0.5, 0.9)]
            print(f"| {name} | {mib} | {s['lockstep_gap']:.1f} | {s['start_spread']:.0f} | "
                  f"{s['per_round_spread']:.2f} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
