#!/usr/bin/env python3
"""Time model against measured kernel times: errors, ranking of tiles, per shape.

Reads committed GPU runs (results/validation-*.json from `iosim validate`, and time sweeps in the
same format), predicts every kernel again with today's model (`iosim --predict`, same problem, tile,
warps and stages; no GPU needed), and prints:
  - |error| of the cold time, median and 90th percentile, overall and per schedule × pass;
  - per group of kernels that differ only by tile (schedule, pass, problem, dtype): the Spearman
    correlation of predicted against measured time, and how much slower the model's first-ranked tile
    ran than the fastest measured (the regret of choosing by the model);
  - the same for problems with n ≤ 2048.
Error = (measured − predicted) / measured, as in docs/validation.md.

  scripts/time-validation.py results/validation-nvidia-h200-*.json --config configs/h200.yaml \
      [--iosim build/iosim] [--jobs 2] [--json-out FILE] [--markdown FILE]
"""
import argparse
import concurrent.futures
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile


def problem_flags(p):
    """iosim's flags for a run's `problem` (a validation JSON's, or one built from a PyTorch run)."""
    flags = ["--n", str(p["n"]), "--n-kv", str(p["n_kv"]), "--d", str(p["d"]), "--batch", str(p["batch"]),
             "--heads", str(p["heads"]), "--dtype", p["dtype"]]
    if p.get("kv_heads"):
        flags += ["--kv-heads", str(p["kv_heads"])]
    if p.get("causal"):
        flags += ["--causal"]
    if p.get("window"):
        flags += ["--window", str(p["window"])]
    if p.get("page_size"):
        flags += ["--page-size", str(p["page_size"]), "--page-order", p.get("page_order") or "contiguous"]
    return flags


def kernel_flags(t):
    """iosim's flags for the kernel a run's `tile` names: its tile, warps, stages and (flashdecode) K/V splits."""
    flags = []
    if t.get("br"):
        flags += ["--br", str(t["br"]), "--bc", str(t["bc"])]
    if t.get("warps"):
        flags += ["--warps", str(t["warps"])]
    if t.get("stages"):
        flags += ["--stages", str(t["stages"])]
    if t.get("splits"):
        flags += ["--splits", str(t["splits"])]
    return flags


def predict(iosim, config, run):
    p, t = run["problem"], run["tile"]
    cmd = [iosim, "--config", config, "--schedule", run["schedule"], "--pass", run["pass"], *problem_flags(p),
           *kernel_flags(t), "--predict", "--format", "json"]
    if run.get("kernels"):
        cmd += ["--kernels", run["kernels"]]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:  # the model refuses a kernel the GPU ran (say so, leave it out)
        return {"refused": done.stderr.strip()}
    return json.loads(done.stdout)["runs"][0]["schedules"][0]["predicted"]


def sdpa_runs(path):
    """PyTorch's runs (scripts/sdpa-bench.py --sweep) as runs of iosim's schedules: the flash backend is
    FlashAttention-2 (flash2 at the model's default tiles, which are FlashAttention-2's own, with
    `--kernels pytorch`: PyTorch's kernels' families), the math path is standard attention as PyTorch's
    eager operators run it (eager: naive's algorithm with the scale and the backward's dP ∘ P as kernels
    of their own, priced at the rates the config measured for them); fwd+bwd is the sum of both passes'
    predictions."""
    out = []
    for r in json.load(open(path))["results"]:
        if r.get("median_ms_cold") is None:
            continue
        problem = {"batch": r["batch"], "heads": r["heads"], "n": r["n"], "n_kv": r["n"], "d": r["d"],
                   "dtype": r["dtype"]}
        sched = "flash2" if r["impl"] == "flash" else "eager"
        # No tiles named: `--kernels pytorch` takes FlashAttention-2's own (its source's tiles, and its
        # split-KV kernels on grids that leave SMs idle), which naming tiles would override.
        default = {"br": 0, "bc": 0, "warps": 0, "stages": 0}
        out.append({"schedule": sched, "pass": "fwd" if r["mode"] == "fwd" else "fwdbwd", "problem": problem,
                    "tile": default, "fwd_tile": default,
                    "measured_ms": r["median_ms_cold"],
                    # sdpa-bench.py --kernel-times: the sum of the kernels' own durations, which leave out
                    # the launch of each (the time between kernels on the stream)
                    "kernel_durations": "kernel_span_median_ms_cold" in r,
                    "source": "torch " + r["impl"], "kernels": "pytorch" if sched == "flash2" else ""})
    return out


def predict_any(iosim, config, run):
    if run["pass"] != "fwdbwd":
        return predict(iosim, config, run)
    parts = [predict(iosim, config, dict(run, **{"pass": "fwd", "tile": run.get("fwd_tile", run["tile"])})),
             predict(iosim, config, dict(run, **{"pass": "bwd"}))]
    for q in parts:
        if "refused" in q:
            return q
    cold = {"time_ms": sum(q["cold"]["time_ms"] for q in parts), "binding": parts[1]["cold"].get("binding", ""),
            "kernels": parts[0]["cold"]["kernels"] + parts[1]["cold"]["kernels"]}
    return {"cold": cold}


def measured_ms(run):
    for row in run.get("rows", []):
        if row["quantity"] == "time, cold L2":
            return row["measured"]
    return run.get("measured_ms")


def spearman(xs, ys):
    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2
            i = j + 1
        return r
    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.mean(rx), statistics.mean(ry)
    num = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    den = (sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry)) ** 0.5
    return num / den if den else float("nan")


def pct(v, q):
    v = sorted(v)
    if not v:
        return float("nan")
    k = (len(v) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


def uncalibrated(config, directory):
    """A copy of `config` without its measured: and kernel_rates: sections: the config of the same GPU had
    nobody calibrated it (its corrected_by: peers, found where `-c` looks, still apply)."""
    out, skipping = [], False
    for text in open(config).read().split("\n"):
        if re.match(r"(measured|kernel_rates):", text):
            skipping = True
        elif skipping and (text == "" or text[0] in " #"):
            continue   # the section's own lines, and comments up to the next top-level key
        else:
            skipping = False
        if not skipping:
            out.append(text)
    path = os.path.join(directory, "uncalibrated-" + os.path.basename(config))
    with open(path, "w") as f:
        f.write("\n".join(out))
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="*")
    ap.add_argument("--config", required=True)
    ap.add_argument("--iosim", default="build/iosim")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--sdpa", action="append", default=[], help="PyTorch runs (scripts/sdpa-bench.py --sweep)")
    ap.add_argument("--schedule", help="only runs of this schedule")
    ap.add_argument("--pass", dest="pass_", help="only runs of this pass")
    ap.add_argument("--n", type=int, help="only runs of this n")
    ap.add_argument("--fail-above-median", type=float, metavar="PCT",
                    help="exit 1 when the median |error| exceeds PCT percent (the CPU test that holds the model)")
    ap.add_argument("--uncalibrated", action="store_true",
                    help="predict with the config less its measured: and kernel_rates: (a GPU nobody calibrated)")
    ap.add_argument("--json-out")
    ap.add_argument("--markdown")
    a = ap.parse_args()
    scratch = tempfile.TemporaryDirectory()
    if a.uncalibrated:
        a.config = uncalibrated(a.config, scratch.name)
    runs = [r for f in a.runs for r in json.load(open(f))["runs"] if measured_ms(r)]
    for f in a.sdpa:
        runs += sdpa_runs(f)
    runs = [r for r in runs if (not a.schedule or r["schedule"] == a.schedule) and
            (not a.pass_ or r["pass"] == a.pass_) and (not a.n or r["problem"]["n"] == a.n)]
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        preds = list(ex.map(lambda r: predict_any(a.iosim, a.config, r), runs))
    rows = []
    refused = [(r, p["refused"]) for r, p in zip(runs, preds) if "refused" in p]
    runs, preds = zip(*[(r, p) for r, p in zip(runs, preds) if "refused" not in p]) if refused else (runs, preds)
    for run, pred in zip(runs, preds):
        m = measured_ms(run)
        ms = pred["cold"]["time_ms"]
        kernels = pred["cold"]["kernels"]
        if run.get("kernel_durations"):  # like with like: the model's kernels less their launches
            ms -= sum(k["time"].get("launch_ms", 0) for k in kernels)
        rows.append({"source": run.get("source", "iosim"), "schedule": run["schedule"], "pass": run["pass"],
                     "problem": run["problem"],
                     "tile": run["tile"], "measured_ms": m, "predicted_ms": ms, "error": (m - ms) / m,
                     "binding": pred["cold"].get("binding", ""),
                     "kernels": [{"name": k["name"], "time": k["time"]} for k in kernels]})

    out = []
    def line(s=""):
        out.append(s)
        print(s)

    def summary(label, sel):
        errs = [abs(r["error"]) for r in sel]
        if not errs:
            return
        line(f"| {label} | {len(errs)} | {100 * statistics.median(errs):.1f}% | {100 * pct(errs, 0.9):.1f}% | "
             f"{100 * max(errs):.1f}% | {100 * statistics.median([r['error'] for r in sel]):+.1f}% |")

    line(f"{len(rows)} kernels; model config {a.config}")
    for r, why in refused:
        t = r["tile"]
        line(f"- not predicted: {r['schedule']} {r['pass']} {t.get('br')}x{t.get('bc')} "
             f"{t.get('warps')}w{t.get('stages')}s at n {r['problem']['n']}, d {r['problem']['d']}: {why}")
    line("")
    line("| kernels | count | median abs error | 90th percentile | largest | median signed |")
    line("|---|---|---|---|---|---|")
    summary("all", rows)
    summary("n ≤ 2048", [r for r in rows if r["problem"]["n"] <= 2048])
    for key in sorted({(r["source"], r["schedule"], r["pass"]) for r in rows}):
        summary(f"{key[0]}: {key[1]} {key[2]}", [r for r in rows if (r["source"], r["schedule"], r["pass"]) == key])

    groups = {}
    for r in rows:
        p = r["problem"]
        if r["source"] != "iosim":
            continue  # PyTorch's runs have one tile each
        key = (r["schedule"], r["pass"], p["batch"], p["heads"], p["n"], p["n_kv"], p["d"], p["dtype"])
        groups.setdefault(key, []).append(r)
    line("")
    line("| schedule | pass | B × H | n | d | type | tiles | Spearman | model's first: slower than best by |")
    line("|---|---|---|---|---|---|---|---|---|")
    rank_stats = []
    for key, g in sorted(groups.items()):
        if len(g) < 3:
            continue
        rho = spearman([r["predicted_ms"] for r in g], [r["measured_ms"] for r in g])
        first = min(g, key=lambda r: r["predicted_ms"])
        best = min(r["measured_ms"] for r in g)
        regret = first["measured_ms"] / best - 1
        rank_stats.append((rho, regret))
        line(f"| {key[0]} | {key[1]} | {key[2]} × {key[3]} | {key[4]} | {key[6]} | {key[7]} | {len(g)} | "
             f"{rho:.2f} | {100 * regret:.1f}% |")
    if rank_stats:
        line("")
        median_spearman = statistics.median(s for s, _ in rank_stats)
        line(f"ranking over {len(rank_stats)} groups: median Spearman {median_spearman:.2f}, "
             f"groups with Spearman ≥ 0.9: {sum(s >= 0.9 for s, _ in rank_stats)}; "
             f"first-ranked within 3% of the best: {sum(r <= 0.03 for _, r in rank_stats)}")
    if a.json_out:
        json.dump(rows, open(a.json_out, "w"), indent=1)
    if a.markdown:
        open(a.markdown, "w").write("\n".join(out) + "\n")
    if a.fail_above_median is not None:
        median = 100 * statistics.median(abs(r["error"]) for r in rows)
        if median > a.fail_above_median:
            print(f"FAIL: median |error| {median:.1f}% is above {a.fail_above_median}%")
            return 1
        print(f"ok: median |error| {median:.1f}% ≤ {a.fail_above_median}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
