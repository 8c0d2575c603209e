#!/usr/bin/env python3
"""Start-up of iosim as a whole process, two builds A/B in turn (A B A B ...), so both see the same load.

  bench/startup_ab.py A_BINARY B_BINARY [-n RUNS] [-- ARGS...]

ARGS default to the main command, `--config a100.yaml --n 8192 --d 64`. Each run's wall time is taken
around spawn and wait, output discarded; the peak memory (maximum resident set) comes from
/usr/bin/time -f %M on five more runs of each, since a child of Python starts from Python's pages.
Prints, per build, the median and range of wall time and peak RSS,
and the median of the pairwise ratios A/B. docs/performance.md quotes it.
"""
import argparse
import statistics
import subprocess
import sys
import tempfile
import time

DEFAULT_ARGS = ["--config", "a100.yaml", "--n", "8192", "--d", "64"]


def one(cmd):
    t = time.perf_counter()
    code = subprocess.call(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    if code != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {code}")
    return wall


def peak_mib(cmd):
    with tempfile.NamedTemporaryFile("r") as f:
        subprocess.run(["/usr/bin/time", "-f", "%M", "-o", f.name] + cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True)
        return int(f.read().split()[-1]) / 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("-n", type=int, default=30, help="runs of each (default 30), after 2 warm-up runs each")
    argv = sys.argv[1:]
    rest = argv[argv.index("--") + 1:] if "--" in argv else []
    o = ap.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    args = rest or DEFAULT_ARGS
    runs = {"A": [], "B": []}
    rss = {"A": [], "B": []}
    for _ in range(2):
        one([o.a] + args)
        one([o.b] + args)
    for _ in range(o.n):
        runs["A"].append(one([o.a] + args))
        runs["B"].append(one([o.b] + args))
    for _ in range(5):
        rss["A"].append(peak_mib([o.a] + args))
        rss["B"].append(peak_mib([o.b] + args))
    print(f"args: {' '.join(args)}; {o.n} runs each, alternated")
    for k, path in (("A", o.a), ("B", o.b)):
        wall, mem = runs[k], rss[k]
        print(f"{k} {path}: wall median {statistics.median(wall) * 1e3:.1f} ms "
              f"({min(wall) * 1e3:.1f}-{max(wall) * 1e3:.1f}), peak RSS median {statistics.median(mem):.1f} MiB "
              f"({min(mem):.1f}-{max(mem):.1f})")
    ratios = [a / b for a, b in zip(runs["A"], runs["B"])]
    print(f"A/B wall, median of pairs: {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
