#!/usr/bin/env python3
"""Behaviour unchanged: a grid of iosim invocations against outputs recorded from an earlier build.

The grid (grid_cases() below): every schedule × pass × mask (none, causal, grouped-query) × predict off/on,
in JSON, on two configs, plus `tiles`, `bounds`, `trace`, `--execute` (with a bug) and refused requests.
Each case's exit status, stdout and stderr, with the repository's path replaced by "<repo>", is reduced to
a SHA-256; tests/golden/grid.sha256 holds one line a case ("<hash>  <args>"), recorded with --record from
the build named in that file's first line. A mismatch names the case; rerun with --diff OTHER_IOSIM to see
the two outputs' difference (OTHER_IOSIM: a build of the recorded commit).

  grid.py IOSIM                 compare (exit 1 naming each case that differs)
  grid.py IOSIM --record NOTE   write grid.sha256 (NOTE: which build, e.g. "main 686c5eb")
  grid.py IOSIM --diff OTHER    print a unified diff of every case whose output differs between the two
"""
import argparse
import difflib
import hashlib
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
GOLDEN = os.path.join(HERE, "grid.sha256")

SCHEDULES = ["naive", "flash1", "flash2", "flashdecode", "dtiled"]
PASSES = ["fwd", "bwd", "fwdbwd"]  # flashdecode and dtiled: fwd (their bwd is refused below)
MASKS = {"none": [], "causal": ["--causal"], "gqa": ["--heads", "4", "--kv-heads", "2"]}


def grid_cases():
    cases = []
    for config, n, d in (("h200", "1024", "64"), ("a100", "512", "128")):
        for s in SCHEDULES:
            for p in (PASSES if s in ("naive", "flash1", "flash2") else ["fwd"]):
                for mask in MASKS.values():
                    for predict in ([], ["-p"]):
                        cases.append(["--config", config, "--n", n, "--d", d, "--schedule", s, "--pass", p,
                                      *mask, *predict, "-f", "json"])
    # Defaults (no --schedule), decode shapes, explicit tiles, stages and warps, the exact L2, csv.
    cases += [
        ["--config", "h200", "--n", "1024", "--d", "64,128", "-f", "json"],
        ["--config", "h200", "--n", "1", "--n-kv", "4096", "--d", "128", "--heads", "8", "--kv-heads", "2",
         "--schedule", "flashdecode,flash2", "-p", "-f", "json"],
        ["--config", "h200", "--n", "1", "--n-kv", "4096", "--d", "128", "--splits", "4", "--schedule",
         "flashdecode", "-p", "-f", "json"],
        ["--config", "h200", "--n", "2048", "--d", "64", "--br", "64,128", "--bc", "64", "--schedule",
         "flash1,flash2", "--pass", "fwdbwd", "-p", "-f", "json"],
        ["--config", "h200", "--n", "1024", "--d", "128", "--schedule", "flash2", "--warps", "8", "--stages", "3",
         "-p", "-f", "json"],
        ["--config", "h200", "--n", "1024", "--d", "64", "--schedule", "flash2", "-p", "--l2", "exact", "-f",
         "json"],
        ["--config", "teaching", "--n", "256", "--d", "64", "--schedule", "naive,flash1,flash2,dtiled", "-f",
         "json"],
        ["--config", "a100", "--n", "1024", "--d", "64", "--pass", "fwdbwd", "-f", "csv"],
        ["--config", "h200", "--scenario", "decode", "-f", "json"],
        ["--config", "h200", "--scenario", "gpt2-medium", "-f", "json"],
    ]
    # Execution, with and without a bug, both passes.
    for s in ("naive", "flash1", "flash2"):
        cases.append(["--config", "teaching", "--n", "128", "--d", "64", "--schedule", s, "--pass", "fwdbwd",
                      "--execute", "fp64", "-f", "json"])
    for bug in ("no-rescale", "no-max", "wrong-l"):
        cases.append(["--config", "teaching", "--n", "128", "--d", "64", "--schedule", "flash1,flash2",
                      "--execute", "fp32", "--bug", bug, "-f", "json"])
    # Subcommands.
    for s in SCHEDULES:
        cases.append(["tiles", "--config", "h200", "--n", "1024", "--d", "64", "--schedule", s,
                      "-f", "json"])
    cases += [
        ["tiles", "--config", "h200", "--n", "1024", "--d", "128", "--pass", "bwd", "-f", "json"],
        ["bounds", "--config", "teaching", "-f", "json"],
        ["trace", "--config", "teaching", "--n", "256", "--d", "64", "-f", "json"],
        ["trace", "--config", "teaching", "--n", "256", "--d", "64", "--pass", "bwd", "--schedule",
         "naive,flash1,flash2", "-f", "json"],
        ["trace", "--config", "teaching", "--n", "256", "--d", "64", "--schedule", "flash2,flashdecode,dtiled",
         "--predict", "-f", "json"],
        ["trace", "--config", "teaching", "--n", "256", "--d", "64", "--causal", "--schedule", "flash2",
         "-f", "svg"],
    ]
    # Refused: one line on stderr, exit 2.
    cases += [
        ["--config", "h200", "--n", "1024", "--d", "64", "--schedule", "flash3"],
        ["--config", "h200", "--n", "1024", "--d", "64", "--schedule", "dtiled", "--pass", "bwd"],
        ["--config", "h200", "--n", "1024", "--d", "64", "--schedule", "flashdecode", "--execute", "fp32"],
        ["--config", "h200", "--n", "1024", "--d", "64", "--schedule", "naive", "--execute", "fp32", "--bug",
         "no-max"],
        ["tiles", "--config", "h200", "--n", "1024", "--d", "64", "--schedule", "naive"],
        ["validate", "--config", "h200", "--schedule", "flashdecode"],
    ]
    return cases


def run(iosim, args):
    env = dict(os.environ, IOSIM_CONFIG_DIR=os.path.join(REPO, "configs"),
               IOSIM_SCENARIO_DIR=os.path.join(REPO, "scenarios"))
    p = subprocess.run([iosim, "-q", *args] if args[0] not in ("tiles", "bounds", "trace", "measure", "validate")
                       else [iosim, args[0], "-q", *args[1:]],
                       capture_output=True, cwd=REPO, env=env, timeout=600)
    text = f"rc {p.returncode}\n--- stdout\n{p.stdout.decode()}--- stderr\n{p.stderr.decode()}"
    return text.replace(REPO, "<repo>").replace(os.path.basename(iosim) + ":", "iosim:")


def digest(text):
    return hashlib.sha256(text.encode()).hexdigest()


def outputs(iosim, cases):
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        return list(pool.map(lambda a: run(iosim, a), cases))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("iosim")
    ap.add_argument("--record", metavar="NOTE")
    ap.add_argument("--diff", metavar="OTHER_IOSIM")
    a = ap.parse_args()
    iosim = os.path.abspath(a.iosim)
    cases = grid_cases()
    keys = [" ".join(c) for c in cases]
    got = outputs(iosim, cases)
    if a.record:
        with open(GOLDEN, "w") as f:
            f.write(f"# {a.record}: {len(cases)} cases (tests/golden/grid.py)\n")
            for k, t in zip(keys, got):
                f.write(f"{digest(t)}  {k}\n")
        print(f"recorded {len(cases)} cases in {GOLDEN}")
        return 0
    if a.diff:
        other = outputs(os.path.abspath(a.diff), cases)
        differ = 0
        for k, t, o in zip(keys, got, other):
            if t != o:
                differ += 1
                sys.stdout.writelines(difflib.unified_diff(o.splitlines(True), t.splitlines(True),
                                                           a.diff + " " + k, a.iosim + " " + k))
        print(f"{differ} of {len(cases)} cases differ")
        return 1 if differ else 0
    want = {}
    with open(GOLDEN) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            h, k = line.rstrip("\n").split("  ", 1)
            want[k] = h
    bad = [k for k in keys if k not in want] + [k for k in want if k not in keys]
    for k in bad:
        print(f"grid: case not in both the grid and {GOLDEN}: {k}")
    differ = [k for k, t in zip(keys, got) if k in want and digest(t) != want[k]]
    for k in differ:
        print(f"grid: output differs from the recorded one: iosim {k}")
    print(f"grid: {len(cases) - len(differ)} of {len(cases)} cases as recorded")
    return 1 if differ or bad else 0


if __name__ == "__main__":
    sys.exit(main())
