#!/usr/bin/env python3
"""How well `iosim tiles --kernels triton` ranks the project's Triton kernels against a measured tile sweep.

Reads a run of scripts/triton-sweep.py (a GPU's times of every config of the tile menu, per shape),
prices the same shapes with `iosim tiles --kernels triton` (no GPU: the configs are compiled here), and
prints, per shape with at least --min-timed configs timed:
  - the Spearman correlation of predicted against measured time of the pass (--pass fwd: the forward,
    the sweep's fwd_ms; bwd: the backward's three kernels, bwd_ms), over the configs both timed;
  - how much slower the model's first choice (among those timed) ran than the fastest timed;
  - feasibility: of the configs whose forward Triton ran, the share iosim calls feasible, and of those
    iosim calls feasible, the share that ran;
and, with --json-out, every config's row.

    scripts/triton-compare.py results/h100-2026-12-06b/triton-sweep.json --config configs/h100.yaml [--pass bwd]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path


def _time_validation():
    """scripts/time-validation.py as a module: its Spearman correlation, the one both reports use."""
    path = Path(__file__).resolve().parent / "time-validation.py"
    spec = importlib.util.spec_from_file_location("time_validation", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


spearman = _time_validation().spearman


def key(cfg):
    return (cfg["block_m"], cfg["block_n"], cfg["num_warps"], cfg["num_stages"])


def predicted(iosim, config, shape, pass_):
    b, h, kvh, n, d, causal = shape
    cmd = [iosim, "tiles", "--config", config, "--batch", str(b), "--heads", str(h), "--kv-heads", str(kvh),
           "--n", str(n), "--d", str(d), "--kernels", "triton", "--pass", pass_, "--top", "1000", "--format", "json"]
    if causal:
        cmd.append("--causal")
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"triton-compare.py: {' '.join(cmd)} failed: {done.stderr.strip()}")
    return {(c["br"], c["bc"], c["warps"], c["stages"]): c for c in json.loads(done.stdout)["candidates"]}


def predicted_timed(iosim, config, shape, pass_, timed):
    """Each timed config priced alone (`iosim --predict` at its tiles, warps and stages): only the timed
    configs' records are needed, not the whole menu's."""
    b, h, kvh, n, d, causal = shape
    out = {}
    for r in timed:
        c = r["config"]
        cmd = [iosim, "--config", config, "--batch", str(b), "--heads", str(h), "--kv-heads", str(kvh), "--n", str(n),
               "--d", str(d), "--schedule", "flash2", "--kernels", "triton", "--pass", pass_, "--predict",
               "--br", str(c["block_m"]), "--bc", str(c["block_n"]), "--warps", str(c["num_warps"]),
               "--stages", str(c["num_stages"]), "--format", "json"] + (["--causal"] if causal else [])
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            out[key(c)] = {"feasible": False, "rejected": done.stderr.strip()}
            continue
        kernels = json.loads(done.stdout)["runs"][0]["schedules"][0]["predicted"]["cold"]["kernels"]
        out[key(c)] = {"feasible": True, "time_ms": sum(k["time"]["total_ms"] for k in kernels)}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sweep")
    ap.add_argument("--config", required=True)
    ap.add_argument("--iosim", default="build/iosim")
    ap.add_argument("--min-timed", type=int, default=5)
    ap.add_argument("--json-out")
    ap.add_argument("--pass", dest="pass_", choices=["fwd", "bwd"], default="fwd",
                    help="the pass compared: fwd (fwd_ms) or bwd (bwd_ms)")
    ap.add_argument("--only-timed", action="store_true",
                    help="price only the configs the sweep timed, each alone, instead of ranking the whole menu "
                         "with iosim tiles (the last column is then not known)")
    ap.add_argument("--fail-below-spearman", type=float, metavar="RHO",
                    help="exit 1 when a shape's Spearman is below RHO (the CPU test that holds the model)")
    ap.add_argument("--fail-above-regret", type=float, metavar="PCT",
                    help="exit 1 when a shape's first choice ran more than PCT percent slower than the best")
    a = ap.parse_args()
    ms = f"{a.pass_}_ms"
    if importlib.util.find_spec("triton") is None:
        print("triton-compare.py: skipped: the model's configs compile with Triton (scripts/setup --triton)")
        return 77
    run = json.load(open(a.sweep))
    failed = []
    by_shape = defaultdict(list)
    for r in run["rows"]:
        by_shape[(r["batch"], r["heads"], r["kv_heads"], r["n"], r["d"], r["causal"])].append(r)
    print(f"{run['gpu']}, Triton {run['triton']}, {run['date']}; model config {a.config}; pass {a.pass_}\n")
    print("| shape (B, H/KV, n, d, causal) | timed | Spearman | model's first: slower than best by | "
          "Triton ran, iosim feasible | iosim feasible, Triton ran |")
    print("|---|---|---|---|---|---|")
    out = []
    for shape, rows in by_shape.items():
        timed = [r for r in rows if ms in r]
        if len(timed) < a.min_timed:
            continue
        pred = (predicted_timed(a.iosim, a.config, shape, a.pass_, timed) if a.only_timed
                else predicted(a.iosim, a.config, shape, a.pass_))
        pairs = [(r, pred.get(key(r["config"]))) for r in timed]
        both = [(r, p) for r, p in pairs if p and p["feasible"]]
        rho = float("nan")
        if len(both) > 2:
            rho = spearman([p["time_ms"] for _, p in both], [r[ms] for r, _ in both])
        best = min(r[ms] for r in timed)
        first = min(both, key=lambda rp: rp[1]["time_ms"])[0][ms] if both else float("nan")
        ran_feasible = sum(1 for _, p in pairs if p and p["feasible"])
        feasible_keys = {k for k, c in pred.items() if c["feasible"]}
        timed_keys = {key(r["config"]) for r in timed}
        # Only the configs whose fate on the GPU is known (timed, or refused by Triton) count for the second.
        known = timed_keys | {key(r["config"]) for r in rows if r.get("skipped", "").startswith("did not compile")}
        feasible_ran = sum(1 for k in feasible_keys & known if k in timed_keys)
        b, h, kvh, n, d, causal = shape
        print(f"| {b}, {h}/{kvh}, {n}, {d}, {causal} | {len(timed)} | {rho:+.2f} | {100 * (first / best - 1):.1f}% | "
              f"{ran_feasible} of {len(timed)} | "
              f"{'n/a' if a.only_timed else f'{feasible_ran} of {len(feasible_keys & known)}'} |")
        if a.fail_below_spearman is not None and not rho >= a.fail_below_spearman:
            failed.append(f"{shape}: Spearman {rho:+.2f} < {a.fail_below_spearman}")
        if a.fail_above_regret is not None and not 100 * (first / best - 1) <= a.fail_above_regret:
            failed.append(f"{shape}: first choice {100 * (first / best - 1):.1f}% > {a.fail_above_regret}%")
        for r, p in pairs:
            out.append({"shape": shape, "config": r["config"], "pass": a.pass_, "measured_ms": r[ms],
                        "predicted_ms": p.get("time_ms") if p else None, "feasible": p["feasible"] if p else None,
                        "reason": p.get("rejected", "") if p else "not priced"})
    if a.json_out:
        with open(a.json_out, "w") as f:
            json.dump(out, f, indent=1)
    for f in failed:
        print(f"FAILED: {f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
