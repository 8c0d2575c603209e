#!/usr/bin/env python3
"""The measured error of today's model, by GPU, schedule, pass and mask: configs/validated-error.csv.

Re-predicts every kernel of the committed GPU runs listed in DATASETS (scripts/repredict-validation.py,
the exact L2 replay) and writes, per config, schedule, pass, mask (none, causal, window) and paging,
for each counter the number of kernels, the median and the largest |error| against the measurement,
and the range of n they cover. `iosim --predict` prints the row of its request beside its figures, so
a prediction comes with the error its kind of kernel has when measured (docs/validation.md).

  scripts/validated-error.py [--iosim build/iosim] [--jobs 2] [--out configs/validated-error.csv]
                             [--check]     # exit 1 where the file differs from what today's model gives
                             [--only h100-validate-flash3]    # datasets whose path contains this
                             [--kernels-out errors.json]      # also every kernel's errors, by dataset

Regenerate it whenever the model's counters or times move (the golden grid changes), and when a new
validation run is committed: add it to DATASETS.
"""
import argparse
import csv
import io
import json
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# (config, committed validation run): the runs of iosim's own kernels whose counters ncu measured, with
# the model's predictions beside them. Time-only sweeps are left out (they have no byte counters).
DATASETS = [
    ("h100", "tests/data/h100-validate-quick-2026-12-07.json"),
    ("h100", "tests/data/h100-validate-decode.json"),
    ("h100", "tests/data/h100-validate-flash3.json"),
    ("h100", "tests/data/h100-window-paged.json"),
    ("h100", "tests/data/h100-flash3-paged.json"),
    ("h200", "tests/data/h200-kernels-check-masks.json"),
    ("h200", "tests/data/h200-validate-flash3-fwd.json"),
    ("h200", "tests/data/h200-validate-flash3-bwd.json"),
]

# repredict-validation.py's counter names, and the CSV's (the order of the output).
COUNTERS = [
    ("L2 reads from the SMs", "l2_read"),
    ("L2 writes from the SMs", "l2_write"),
    ("DRAM reads", "dram_read"),
    ("DRAM writes (with the drain)", "dram_write"),
    ("time, cold L2", "time_cold"),
]
FIELDS = ["config", "schedule", "pass", "mask", "paged", "counter", "kernels", "median_pct", "max_pct", "n_min",
          "n_max", "sources"]


def mask_of(problem):
    if problem.get("window"):
        return "window"
    return "causal" if problem.get("causal") else "none"


def repredict(iosim, config, path, jobs):
    """repredict-validation.py's per-kernel errors of one committed run."""
    with tempfile.NamedTemporaryFile("r", suffix=".json") as out:
        cmd = [sys.executable, str(ROOT / "scripts/repredict-validation.py"), str(ROOT / path), "--config",
               str(ROOT / "configs" / f"{config}.yaml"), "--iosim", iosim, "--jobs", str(jobs), "--json-out", out.name]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        return json.load(out)


def table(iosim, jobs, only, kernels_out=None):
    groups = defaultdict(lambda: {"errors": defaultdict(list), "ns": [], "sources": set()})
    for config, path in DATASETS:
        if only and only not in path:
            continue
        kernels = repredict(iosim, config, path, jobs)
        if kernels_out is not None:
            kernels_out.extend({"config": config, "dataset": Path(path).stem} | k for k in kernels)
        for k in kernels:
            g = groups[(config, k["schedule"], k["pass"], mask_of(k["problem"]), int("page_size" in k["problem"]))]
            g["ns"].append(k["problem"]["n"])
            g["sources"].add(Path(path).stem)
            for name, key in COUNTERS:
                if name in k:
                    g["errors"][key].append(abs(k[name]["error_now"]))
    rows = []
    for (config, schedule, pass_, mask, paged), g in sorted(groups.items()):
        for _, key in COUNTERS:
            e = g["errors"].get(key)
            if not e:
                continue
            rows.append({"config": config, "schedule": schedule, "pass": pass_, "mask": mask, "paged": paged,
                         "counter": key, "kernels": len(e), "median_pct": f"{100 * statistics.median(e):.1f}",
                         "max_pct": f"{100 * max(e):.1f}", "n_min": min(g["ns"]), "n_max": max(g["ns"]),
                         "sources": " ".join(sorted(g["sources"]))})
    return rows


def key(row):
    """The kind of kernel a row is of (its group)."""
    return tuple(str(row[f]) for f in ("config", "schedule", "pass", "mask", "paged"))


def render(rows):
    buf = io.StringIO()
    buf.write("# The measured error of iosim's predictions by config, schedule, pass, mask and paging: median and\n"
              "# largest |error| in percent over the committed GPU runs named in sources (ncu counters, CUDA-event\n"
              "# times), re-predicted with today's model. Generated by scripts/validated-error.py; do not edit.\n")
    w = csv.DictWriter(buf, FIELDS, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--iosim", default=str(ROOT / "build/iosim"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default=str(ROOT / "configs/validated-error.csv"))
    ap.add_argument("--check", action="store_true", help="compare with --out instead of writing it")
    ap.add_argument("--only", help="only the datasets whose path contains this text (with --check: their rows)")
    ap.add_argument("--kernels-out", help="also write every kernel's errors here (JSON), e.g. to list those above 5%%")
    a = ap.parse_args()
    kernels = [] if a.kernels_out else None
    rows = table(a.iosim, a.jobs, a.only, kernels)
    if a.kernels_out:
        Path(a.kernels_out).write_text(json.dumps(kernels, indent=1))
    if not a.check:
        if a.only:
            ap.error("--only writes part of the table: use it with --check")
        Path(a.out).write_text(render(rows))
        print(f"{a.out}: {len(rows)} rows")
        return 0
    committed = list(csv.DictReader(line for line in Path(a.out).read_text().splitlines() if not line.startswith("#")))
    if a.only:
        # Rows of the groups that only these datasets fill can be compared; others mix in other runs.
        stems = {Path(p).stem for _, p in DATASETS if a.only in p}
        committed = [r for r in committed if set(r["sources"].split()) <= stems]
        kinds = {key(r) for r in committed}
        rows = [r for r in rows if key(r) in kinds]
        if not committed:
            print(f"{a.out}: no kind measured only by datasets matching {a.only!r}: nothing to compare")
            return 1
    now = [{k: str(v) for k, v in r.items()} for r in rows]
    if now != committed:
        print(f"{a.out} is stale: today's model gives")
        print(render(rows))
        return 1
    print(f"{a.out}: {len(rows)} rows as today's model gives")
    return 0


if __name__ == "__main__":
    sys.exit(main())
