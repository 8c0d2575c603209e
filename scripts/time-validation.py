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
import statistics
import subprocess
import sys


def predict(iosim, config, run):
    p, t = run["problem"], run["tile"]
    cmd = [iosim, "--config", config, "--schedule", run["schedule"], "--pass", run["pass"],
           "--n", str(p["n"]), "--n-kv", str(p["n_kv"]), "--d", str(p["d"]), "--batch", str(p["batch"]),
           "--heads", str(p["heads"]), "--dtype", p["dtype"], "--predict", "--format", "json"]
    if p.get("kv_heads"):
        cmd += ["--kv-heads", str(p["kv_heads"])]
    if p.get("causal"):
        cmd += ["--causal"]
    if t.get("br"):
        cmd += ["--br", str(t["br"]), "--bc", str(t["bc"])]
    if t.get("warps"):
        cmd += ["--warps", str(t["warps"])]
    if t.get("stages"):
        cmd += ["--stages", str(t["stages"])]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:  # the model refuses a kernel the GPU ran (say so, leave it out)
        return {"refused": done.stderr.strip()}
    return json.loads(done.stdout)["runs"][0]["schedules"][0]["predicted"]


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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--config", required=True)
    ap.add_argument("--iosim", default="build/iosim")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json-out")
    ap.add_argument("--markdown")
    a = ap.parse_args()
    runs = [r for f in a.runs for r in json.load(open(f))["runs"] if measured_ms(r)]
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        preds = list(ex.map(lambda r: predict(a.iosim, a.config, r), runs))
    rows = []
    refused = [(r, p["refused"]) for r, p in zip(runs, preds) if "refused" in p]
    runs, preds = zip(*[(r, p) for r, p in zip(runs, preds) if "refused" not in p]) if refused else (runs, preds)
    for run, pred in zip(runs, preds):
        m = measured_ms(run)
        ms = pred["cold"]["time_ms"]
        kernels = pred["cold"]["kernels"]
        rows.append({"schedule": run["schedule"], "pass": run["pass"], "problem": run["problem"],
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
    for key in sorted({(r["schedule"], r["pass"]) for r in rows}):
        summary(f"{key[0]} {key[1]}", [r for r in rows if (r["schedule"], r["pass"]) == key])

    groups = {}
    for r in rows:
        p = r["problem"]
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
        line(f"ranking over {len(rank_stats)} groups: median Spearman {statistics.median(s for s, _ in rank_stats):.2f}, "
             f"groups with Spearman ≥ 0.9: {sum(s >= 0.9 for s, _ in rank_stats)}; "
             f"first-ranked within 3% of the best: {sum(r <= 0.03 for _, r in rank_stats)}")
    if a.json_out:
        json.dump(rows, open(a.json_out, "w"), indent=1)
    if a.markdown:
        open(a.markdown, "w").write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
