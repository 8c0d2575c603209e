#!/usr/bin/env python3
"""Behaviour unchanged: a grid of iosim invocations against outputs recorded from an earlier build.

The grid (grid_cases() below): every schedule × pass × mask (none, causal, grouped-query) × predict off/on,
in JSON, on two configs, plus `tiles`, `bounds`, `trace`, `--execute` (with a bug) and refused requests.
Each case's exit status, stdout and stderr, with the repository's path replaced by "<repo>", is reduced to
a SHA-256; tests/golden/grid.sha256 holds one line a case ("<hash>  <args>"), recorded with --record from
the build named in that file's first line. A mismatch names the case; rerun with --diff OTHER_IOSIM to see
the two outputs' difference (OTHER_IOSIM: a build of the recorded commit).

A build of another commit runs against that commit's configs and scenarios (an older build may require
config keys this tree has removed): --tree DIR (a checkout or `git archive` of it) gives their folder; it
becomes the working directory and is written "<repo>" like this repository. With --diff, --other-tree is
OTHER_IOSIM's.

  grid.py IOSIM                 compare (exit 1 naming each case that differs)
  grid.py IOSIM --record NOTE   write grid.sha256 (NOTE: which build, e.g. "main 686c5eb")
  grid.py IOSIM --diff OTHER    print a unified diff of every case whose output differs between the two

Cases listed in UNHASHED (none today) run but are not compared: their output differs from the recorded
build's for a reason the list states.
"""
import argparse
import difflib
import hashlib
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
GOLDEN = os.path.join(HERE, "grid.sha256")

SCHEDULES = ["naive", "flash1", "flash2", "flashdecode", "flashdecode-heads", "dtiled"]
SWEEP_SPEC = os.path.join(HERE, "sweep-tiny.yaml")

# Cases whose output legitimately differs from the recorded build's, each with the reason: run, never
# hashed. Empty: every case of the grid is compared.
UNHASHED = {}
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
        ["--config", "h200", "--n", "1024", "--d", "64", "--schedule", "flash9"],
        ["--config", "h200", "--n", "1024", "--d", "64", "--schedule", "dtiled", "--pass", "bwd"],
        ["--config", "h200", "--n", "1024", "--d", "64", "--schedule", "flashdecode", "--execute", "fp32"],
        ["--config", "h200", "--n", "1024", "--d", "64", "--schedule", "naive", "--execute", "fp32", "--bug",
         "no-max"],
        ["tiles", "--config", "h200", "--n", "1024", "--d", "64", "--schedule", "naive"],
        ["validate", "--config", "h200", "--schedule", "dtiled"],  # refused before the GPU module loads
        ["--config", "h200", "--n", "1024", "--d", "64", "-p", "--l2", "exact", "--l2-skip-rounds"],
        ["--config", "h200", "--n", "1024", "--d", "64", "-p", "--l2-merge"],
    ]
    # What main added after 686c5eb: flashdecode-heads, causal and grouped-query predictions (ragged, both
    # passes, the exact L2), the text report of a prediction (warp instructions are in every -p JSON
    # above), a schedule without a backward pass, and a tiny sweep written to stdout.
    cases += [
        ["--config", "h200", "--n", "1", "--n-kv", "4096", "--d", "128", "--heads", "32", "--kv-heads", "8",
         "--schedule", "flashdecode,flashdecode-heads", "-p", "-f", "json"],
        ["--config", "a100", "--n", "1", "--n-kv", "8192", "--d", "64", "--heads", "8", "--kv-heads", "1",
         "--batch", "2", "--schedule", "flashdecode-heads", "--splits", "3", "-p", "-f", "json"],
        ["--config", "h200", "--n", "1000", "--n-kv", "1800", "--d", "64", "--heads", "8", "--kv-heads", "2",
         "--causal", "--schedule", "naive,flash1,flash2", "--pass", "fwdbwd", "-p", "-f", "json"],
        ["--config", "h200", "--n", "2048", "--d", "128", "--heads", "16", "--kv-heads", "4", "--causal",
         "--schedule", "flash2", "-p", "--l2", "exact", "-f", "json"],
        ["--config", "h200", "--n", "1024", "--d", "64", "-p"],
        ["--config", "h200", "--n", "1", "--n-kv", "4096", "--d", "64", "--heads", "8", "--kv-heads", "2",
         "--schedule", "flashdecode-heads", "-p"],
        ["tiles", "--config", "h200", "--n", "1024", "--d", "64", "--causal", "--heads", "8", "--kv-heads", "2",
         "--schedule", "flash2", "-f", "json"],
        ["--config", "h200", "--n", "1024", "--d", "64", "--schedule", "flashdecode-heads", "--pass", "bwd"],
        ["sweep", SWEEP_SPEC, "-o", "-"],
        ["sweep", SWEEP_SPEC, "--list"],
    ]
    # What fa3s added: flash3 (FlashAttention-3, Hopper only) on the H200, both passes, causal and
    # grouped-query, counted and predicted; its tile search; refused on the A100 and at d = 100.
    for mask in MASKS.values():
        for predict in ([], ["-p"]):
            cases.append(["--config", "h200", "--n", "1024", "--d", "64", "--schedule", "flash3", "--pass",
                          "fwdbwd", *mask, *predict, "-f", "json"])
    cases += [
        ["--config", "h200", "--n", "1000", "--n-kv", "1800", "--d", "128", "--schedule", "flash2,flash3", "-p"],
        ["tiles", "--config", "h200", "--n", "1024", "--d", "128", "--schedule", "flash3", "-f", "json"],
        ["--config", "a100", "--n", "1024", "--d", "64", "--schedule", "flash3"],
        ["--config", "h200", "--n", "1024", "--d", "100", "--schedule", "flash3"],
    ]
    # PyTorch's kernels (--kernels pytorch): flash2 at FlashAttention-2's own default tiles, not the
    # kernel menu's (iosim's kernels'), at both head dimensions, both passes, predicted.
    for config, n, d in (("h200", "1024", "64"), ("a100", "512", "128")):
        cases.append(["--config", config, "--n", n, "--d", d, "--schedule", "flash2", "--pass", "fwdbwd",
                      "--kernels", "pytorch", "-p", "-f", "json"])
    return cases


SUBCOMMANDS = ("tiles", "bounds", "trace", "measure", "validate", "sweep")


def run(iosim, args, tree=REPO):
    env = dict(os.environ, IOSIM_CONFIG_DIR=os.path.join(tree, "configs"),
               IOSIM_SCENARIO_DIR=os.path.join(tree, "scenarios"))
    p = subprocess.run([iosim, "-q", *args] if args[0] not in SUBCOMMANDS else [iosim, args[0], "-q", *args[1:]],
                       capture_output=True, cwd=tree, env=env, timeout=600)
    text = f"rc {p.returncode}\n--- stdout\n{p.stdout.decode()}--- stderr\n{p.stderr.decode()}"
    # HERE before REPO: the sweep file's path is the same text whichever tree runs it.
    text = text.replace(HERE, "<repo>/tests/golden").replace(REPO, "<repo>").replace(tree, "<repo>")
    return comparable(text.replace(os.path.basename(iosim) + ":", "iosim:"))


# What the recorded build did not print and this one does, removed before hashing so that the rest is
# still compared: where each schedule's tile came from (issue 14, item 3: the JSON's tile "source" and the
# table's "tiles from:" line).
TILE_SOURCE_JSON = re.compile(r'("tile":\s*\{\s*"br":\s*\d+,\s*"bc":\s*\d+),\s*"source":\s*"[^"]*"')
TILE_SOURCE_LINE = re.compile(r"^  tiles from: .*\n", re.M)


def comparable(text):
    return TILE_SOURCE_LINE.sub("", TILE_SOURCE_JSON.sub(r"\1", text))


def key_of(case):
    return " ".join(os.path.relpath(a, REPO) if a.startswith(HERE) else a for a in case)


def digest(text):
    return hashlib.sha256(text.encode()).hexdigest()


def outputs(iosim, cases, tree=REPO):
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        return list(pool.map(lambda a: run(iosim, a, tree), cases))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("iosim")
    ap.add_argument("--record", metavar="NOTE")
    ap.add_argument("--diff", metavar="OTHER_IOSIM")
    ap.add_argument("--tree", default=REPO, help="the configs' and scenarios' tree for IOSIM")
    ap.add_argument("--other-tree", default=REPO, help="the same for --diff's OTHER_IOSIM")
    a = ap.parse_args()
    iosim = os.path.abspath(a.iosim)
    tree = os.path.abspath(a.tree)
    cases = grid_cases()
    keys = [key_of(c) for c in cases]
    got = outputs(iosim, cases, tree)
    if a.record:
        with open(GOLDEN, "w") as f:
            f.write(f"# {a.record}: {len(cases)} cases (tests/golden/grid.py)\n")
            for k, t in zip(keys, got):
                if k not in UNHASHED:
                    f.write(f"{digest(t)}  {k}\n")
        print(f"recorded {len(cases) - len(UNHASHED)} cases in {GOLDEN}")
        return 0
    if a.diff:
        other = outputs(os.path.abspath(a.diff), cases, os.path.abspath(a.other_tree))
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
    bad = [k for k in keys if k not in want and k not in UNHASHED] + [k for k in want if k not in keys]
    for k in bad:
        print(f"grid: case not in both the grid and {GOLDEN}: {k}")
    differ = [k for k, t in zip(keys, got) if k in want and digest(t) != want[k]]
    for k in differ:
        print(f"grid: output differs from the recorded one: iosim {k}")
    print(f"grid: {len(cases) - len(differ)} of {len(cases)} cases as recorded")
    return 1 if differ or bad else 0


if __name__ == "__main__":
    sys.exit(main())
