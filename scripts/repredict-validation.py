#!/usr/bin/env python3
"""Re-predict a committed validation run (results/validation-*.json) with the current model.

Measured counters do not change when the model does: this runs `iosim --predict` on every kernel of
a validation JSON (same problem, tile, warps and stages) and prints, per counter, the error of the
prediction committed with the run beside the error of today's model. Runs measured without a
prediction (`iosim validate --no-predict`, the time sweeps) have no committed error: "-". It needs no GPU, so a
change to the L2 or time model can be checked against the H200's numbers on any machine.

  scripts/repredict-validation.py results/validation-nvidia-h200-2026-11-29.json \
      --config configs/h200.yaml [--iosim build/iosim] [--l2-policy random] [--jobs 2] \
      [--pass bwd] [--grouped]    # only the backward kernels, only those with grouped K/V heads
      [--schedule flashdecode] [--fail-above-median "DRAM writes (with the drain)=41"] \
      [--iosim-arg=--l2-merge]     # further iosim flags, passed through (repeatable)
The last fails (exit 1) when today's median |error| of that counter is above the limit, in percent (the
ctests that hold a counter on committed data, tests/CMakeLists.txt).
"""
import argparse
import concurrent.futures
import importlib.util
import json
import statistics
import subprocess
import sys
from pathlib import Path

COUNTERS = {
    "L2 reads from the SMs": ("l2_read_bytes", None),
    "L2 writes from the SMs": ("l2_write_bytes", None),
    "DRAM reads": ("dram__bytes_read", None),
    "DRAM writes (with the drain)": ("dram__bytes_write", None),
    "time, cold L2": ("time_ms", None),
}


def _time_validation():
    """scripts/time-validation.py as a module: its problem_flags, the one both scripts use."""
    path = Path(__file__).resolve().parent / "time-validation.py"
    spec = importlib.util.spec_from_file_location("time_validation", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_shared = _time_validation()
problem_flags, kernel_flags = _shared.problem_flags, _shared.kernel_flags


def predict(iosim, config, run, policy, extra):
    cmd = [iosim, "--config", config, "--schedule", run["schedule"], "--pass", run["pass"],
           *problem_flags(run["problem"]), *kernel_flags(run["tile"]), "--predict", "--l2", "exact", "--format", "json",
           *extra]
    if policy:
        cmd += ["--l2-policy", policy]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return json.loads(out)["runs"][0]["schedules"][0]["predicted"]["cold"]


def predicted_value(run, pred, key):
    """The prediction set beside a measured counter. A TMA kernel's L2 reads were measured at the SMs
    (l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld): every sector delivered, merged or not."""
    if key == "l2_read_bytes" and run.get("tma_loads") and "l1tex__m_xbar2l1tex_read_sectors" in pred:
        lookups = pred["lts__t_sectors_srcunit_tex_op_read"]
        sector = pred["l2_read_bytes"] / lookups if lookups else 32
        return pred["l1tex__m_xbar2l1tex_read_sectors"] * sector
    return pred[key]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("validation", nargs="+")
    ap.add_argument("--config", required=True)
    ap.add_argument("--iosim", default="build/iosim")
    ap.add_argument("--l2-policy", default="")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--iosim-arg", action="append", default=[], help="a further iosim flag (repeatable)")
    ap.add_argument("--json-out", help="write the per-kernel errors here")
    ap.add_argument("--pass", dest="pass_", choices=["fwd", "bwd"], help="only the kernels of this pass")
    ap.add_argument("--grouped", action="store_true", help="only the kernels with grouped K/V heads (kv_heads < heads)")
    ap.add_argument("--schedule", action="append", help="only the kernels of these schedules (repeatable)")
    ap.add_argument("--fail-above-median", action="append", default=[], metavar="COUNTER=PERCENT",
                    help="exit 1 if today's median |error| of COUNTER is above PERCENT (repeatable)")
    a = ap.parse_args()
    runs = [r for f in a.validation for r in json.load(open(f))["runs"]]
    if a.pass_:
        runs = [r for r in runs if r["pass"] == a.pass_]
    if a.schedule:
        runs = [r for r in runs if r["schedule"] in a.schedule]
    if a.grouped:
        runs = [r for r in runs if r["problem"].get("kv_heads", r["problem"]["heads"]) < r["problem"]["heads"]]
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        new = list(ex.map(lambda r: predict(a.iosim, a.config, r, a.l2_policy, a.iosim_arg), runs))
    table = {q: ([], []) for q in COUNTERS}
    per_kernel = []
    for run, pred in zip(runs, new):
        rows = {x["quantity"]: x for x in run["rows"]}
        entry = {"schedule": run["schedule"], "pass": run["pass"], "problem": run["problem"], "tile": run["tile"]}
        for q, (key, _) in COUNTERS.items():
            r = rows[q]
            if r["measured"] in (None, 0):
                continue
            err_then = r["error"]  # None: measured without a prediction (validate --no-predict)
            now = predicted_value(run, pred, key)
            err_now = (r["measured"] - now) / r["measured"]
            if err_then is not None:
                table[q][0].append(abs(err_then))
            table[q][1].append(abs(err_now))
            entry[q] = {"measured": r["measured"], "committed": r["predicted"], "now": now, "error_now": err_now}
        per_kernel.append(entry)
    print(f"{len(runs)} kernels; model config {a.config}, L2 policy {a.l2_policy or 'lru'}"
          + (f", iosim {' '.join(a.iosim_arg)}" if a.iosim_arg else ""))
    print(f"{'counter':32} {'median |err| then':>18} {'now':>8} {'max then':>10} {'now':>8} {'>5% then':>9} {'now':>5}")
    def pct(v, width):
        return f"{'-':>{width}}" if v is None else f"{100*v:{width - 1}.1f}%"

    for q, (then, now) in table.items():
        if not now:
            continue
        med_then = statistics.median(then) if then else None
        max_then = max(then) if then else None
        over_then = str(sum(e > 0.05 for e in then)) if then else "-"
        print(f"{q:32} {pct(med_then, 18)} {pct(statistics.median(now), 8)} "
              f"{pct(max_then, 10)} {pct(max(now), 8)} {over_then:>9} {sum(e > 0.05 for e in now):5d}")
    if a.json_out:
        json.dump(per_kernel, open(a.json_out, "w"), indent=1)
    failed = False
    for limit in a.fail_above_median:
        q, pct_limit = limit.rsplit("=", 1)
        now = table[q][1]
        if not now or 100 * statistics.median(now) > float(pct_limit):
            print(f"FAIL: {q}: median |error| {pct(statistics.median(now), 8) if now else 'none'} above {pct_limit}%")
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
