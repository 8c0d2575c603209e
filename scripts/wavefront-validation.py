#!/usr/bin/env python3
"""Shared-memory wavefronts: the model's count against ncu's, per kernel family, on committed validation runs.

Re-predicts each run of the given validation JSONs that holds a measured
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st} (the "shared-memory wavefronts" row) with today's
model (`iosim --predict`, same problem, tile, warps and stages), and prints per group (schedule and pass,
and whether every kernel's count is counted or some kernel's is estimated) the median and largest
|error| of two predictions:
  before: every kernel's shared-memory bytes over 128 (one conflict-free wavefront: the old estimate);
  after:  the count from the time model's instructions (sim/timing/smem_wavefronts.h) where the kernel's
          family knows its layout, that estimate for the others.
ncu measured the run's kernels together; --kernel NAME adds a group "NAME (the rest)" over the runs that
launch NAME: its share taken as the measurement less every other kernel's count (exact only where
theirs are), before (0) and after (its count).

  scripts/wavefront-validation.py results/h100-2026-12-06e/validation-*.json --config configs/h100.yaml \\
      [--iosim build/iosim] [--jobs 2] [--only flash2-fwd ...] [--kernel flashdecode_combine ...]
      [--fail-above-median flash2-fwd=5 ...]
"""
import argparse
import concurrent.futures
import importlib.util
import json
import statistics
import subprocess
import sys
from pathlib import Path

QUANTITY = "shared-memory wavefronts"
WAVEFRONT_BYTES = 128


def _time_validation():
    path = Path(__file__).resolve().parent / "time-validation.py"
    spec = importlib.util.spec_from_file_location("time_validation", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_shared = _time_validation()
problem_flags, kernel_flags = _shared.problem_flags, _shared.kernel_flags


def predict(iosim, config, run):
    cmd = [iosim, "--config", config, "--schedule", run["schedule"], "--pass", run["pass"],
           *problem_flags(run["problem"]), *kernel_flags(run["tile"]), "--predict", "--format", "json"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return json.loads(out)["runs"][0]["schedules"][0]["predicted"]["cold"]


def measured_runs(files):
    for f in files:
        d = json.load(open(f))
        for run in d.get("runs") or [d]:
            rows = [r for r in run.get("rows", []) if r["quantity"] == QUANTITY]
            if rows and rows[0].get("measured"):
                yield run, rows[0]["measured"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("validation", nargs="+")
    ap.add_argument("--config", required=True)
    ap.add_argument("--iosim", default="build/iosim")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json-out", help="write the per-kernel figures here")
    ap.add_argument("--only", action="append", default=[], metavar="SCHEDULE-PASS",
                    help="only the runs of this schedule and pass (e.g. flash2-fwd); repeatable")
    ap.add_argument("--kernel", action="append", default=[], metavar="NAME",
                    help="also the error of kernel NAME alone, as the rest of the measurement (see above)")
    ap.add_argument("--fail-above-median", action="append", default=[], metavar="GROUP=PERCENT",
                    help="exit 1 when the group's median |error| (after) is above PERCENT, or the group is absent")
    a = ap.parse_args()
    runs = [rm for rm in measured_runs(a.validation)
            if not a.only or f"{rm[0]['schedule']}-{rm[0]['pass']}" in a.only]
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        preds = list(ex.map(lambda rm: predict(a.iosim, a.config, rm[0]), runs))
    groups = {}
    per_kernel = []
    for (run, measured), cold in zip(runs, preds):
        kernels = cold["kernels"]
        before = sum(k["sram_bytes"] for k in kernels) / WAVEFRONT_BYTES
        after = cold["smem_wavefronts"]
        estimated = [k["name"] for k in kernels if not k["time"]["smem_wavefronts"]["counted"]]
        group = f"{run['schedule']}-{run['pass']}" + (" (estimated: " + ", ".join(sorted(set(estimated))) + ")"
                                                      if estimated else "")
        e_before = (measured - before) / measured
        e_after = (measured - after) / measured
        groups.setdefault(group, []).append((e_before, e_after))
        counts = {}
        for k in kernels:
            counts[k["name"]] = counts.get(k["name"], 0) + k["time"]["smem_wavefronts"]["total"]
        for name in a.kernel:
            if name not in counts:
                continue
            rest = measured - (after - counts[name])
            if rest > 0:
                groups.setdefault(f"{name} (the rest)", []).append((1.0, (rest - counts[name]) / rest))
        per_kernel.append({"schedule": run["schedule"], "pass": run["pass"], "problem": run["problem"],
                           "tile": run["tile"], "measured": measured, "before": before, "after": after,
                           "estimated": estimated, "kernels": counts})
    print(f"{len(runs)} kernels with measured wavefronts; model config {a.config}")
    print(f"{'group':60} {'n':>4} {'median before':>14} {'after':>8} {'max before':>11} {'after':>8}"
          f" {'signed after':>13}")
    for g, errs in sorted(groups.items()):
        b = [abs(x) for x, _ in errs]
        n = [abs(y) for _, y in errs]
        signed = statistics.median(y for _, y in errs)
        print(f"{g:60} {len(errs):4d} {100 * statistics.median(b):13.1f}% {100 * statistics.median(n):7.1f}% "
              f"{100 * max(b):10.1f}% {100 * max(n):7.1f}% {100 * signed:+12.1f}%")
    if a.json_out:
        json.dump(per_kernel, open(a.json_out, "w"), indent=1)
    failed = False
    for spec in a.fail_above_median:
        g, limit = spec.rsplit("=", 1)
        if g not in groups:
            print(f"FAIL: no kernel of group {g}")
            failed = True
            continue
        med = 100 * statistics.median(abs(y) for _, y in groups[g])
        if med > float(limit):
            print(f"FAIL: {g}: median |error| {med:.2f}% above {limit}%")
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
