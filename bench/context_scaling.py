#!/usr/bin/env python3
"""How a prediction's cost grows with the context length: one request at several n, whole processes.

  bench/context_scaling.py IOSIM [--b OTHER_IOSIM] [--ns 32768,65536,131072] [--runs 1]
                           [--slope-from 32768] [-- ARGS...]

ARGS default to the long-context issue's request without its n: `-c h200 --heads 32 --kv-heads 8
--d 128 --causal --pass fwdbwd --schedule flash2 --predict`. For each n the script runs IOSIM (and
OTHER_IOSIM, in turn with it, so both see the same load) with `--n N -q -f json --max-time 1h`, and
takes the user CPU seconds and the peak resident set from the operating system's accounting of the
finished process (os.wait4), and the work estimate from a run with `--max-time 0.001s` (which refuses
and prints it). It prints a Markdown table (n, user s, wall s, peak MiB, estimate s, estimate ÷
measured) per build and the log-log slope of user CPU against n, least squares over n ≥ --slope-from:
below 1 the cost grows sublinearly in n (docs/performance.md, "Long contexts").
"""
import argparse
import math
import os
import re
import statistics
import subprocess
import sys
import time

DEFAULT_ARGS = ["-c", "h200", "--heads", "32", "--kv-heads", "8", "--d", "128", "--causal", "--pass", "fwdbwd",
                "--schedule", "flash2", "--predict"]
ESTIMATE = re.compile(r"would take about ([0-9.]+) (ms|s|min|h)\b")
UNIT = {"ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0}


def run(cmd):
    """(user CPU s, wall s, peak MiB) of one finished process; exits on failure."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(cmd)}: exit {os.waitstatus_to_exitcode(status)}: {err.strip()}")
    return usage.ru_utime, wall, usage.ru_maxrss / 1024


def estimate(cmd):
    """The work estimate iosim prints when the limit refuses the request, in seconds (None where it does not)."""
    p = subprocess.run(cmd + ["--max-time", "0.001s"], capture_output=True, text=True, check=False)
    m = ESTIMATE.search(p.stderr)
    return float(m.group(1)) * UNIT[m.group(2)] if m else None


def slope(points):
    """Least-squares slope of log(time) against log(n)."""
    xs = [math.log(n) for n, _ in points]
    ys = [math.log(t) for _, t in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den if den else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("iosim")
    ap.add_argument("--b", help="a second build, run in turn with the first")
    ap.add_argument("--ns", default="32768,65536,131072", help="context lengths, comma-separated")
    ap.add_argument("--runs", type=int, default=1, help="runs of each build at each n (the median is shown)")
    ap.add_argument("--slope-from", type=int, default=32768, help="the smallest n the slope is fitted over")
    argv = sys.argv[1:]
    rest = argv[argv.index("--") + 1:] if "--" in argv else []
    o = ap.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    try:
        ns = [int(x) for x in o.ns.split(",")]
    except ValueError:
        ap.error(f"--ns: not a list of integers: {o.ns!r}")
    if o.runs < 1 or any(n < 1 for n in ns):
        ap.error("--runs and every n must be positive")
    args = rest or DEFAULT_ARGS
    builds = {"A": o.iosim} | ({"B": o.b} if o.b else {})
    rows = {k: [] for k in builds}
    for n in ns:
        samples = {k: [] for k in builds}
        for _ in range(o.runs):
            for k, path in builds.items():
                samples[k].append(run([path] + args + ["--n", str(n), "-q", "-f", "json", "--max-time", "1h"]))
        for k, path in builds.items():
            user = statistics.median(s[0] for s in samples[k])
            wall = statistics.median(s[1] for s in samples[k])
            peak = max(s[2] for s in samples[k])
            rows[k].append((n, user, wall, peak, estimate([path] + args + ["--n", str(n)])))
    print(f"args: {' '.join(args)}; load average at the end {os.getloadavg()[0]:.1f}; {o.runs} run(s) each")
    for k, path in builds.items():
        print(f"\n{k}: {path}\n")
        print("| n | user s | wall s | peak MiB | estimate s | estimate ÷ measured |")
        print("|---|---|---|---|---|---|")
        for n, user, wall, peak, est in rows[k]:
            ratio = f"{est / user:.2f}" if est and user > 0 else "–"
            print(f"| {n} | {user:.2f} | {wall:.2f} | {peak:.1f} | {est if est is not None else '–'} | {ratio} |")
        fit = [(n, user) for n, user, *_ in rows[k] if n >= o.slope_from and user > 0]
        if len(fit) >= 2:
            print(f"\nlog-log slope of user CPU against n over n ≥ {o.slope_from}: {slope(fit):.2f}")


if __name__ == "__main__":
    main()
