#!/usr/bin/env python3
"""The decoding kernels' DRAM writes in the committed validation runs against the tensors they store.

For each decode run: the bytes of O, L, Opart, Lpart (rows = batch·heads·n; no padding: the kernel
stores only rows that exist), the model's DRAM writes, the measured ones, the excess (measured −
predicted), and the run's measured L2 write bytes (sectors × 32): a write-back L2 writes a dirty sector
to DRAM at most once per store that dirtied it, so what the kernels alone can send to DRAM is at most
the L2 write bytes. Then the clean-L2 drains of the committed profiler tests: DRAM writes of the drain
sweep after a kernel that wrote nothing to global memory.

Run from the repository root: python3 results/decode-writes-2026-12-06/tabulate.py
"""
import glob
import json
import re
import statistics

W = "DRAM writes (with the drain)"


def decode_rows():
    out = []
    files = sorted(glob.glob("results/*/validation-*.json") + glob.glob("results/*/*/validation-*.json"))
    for f in files:
        try:
            runs = json.load(open(f)).get("runs", [])
        except (OSError, ValueError):
            continue
        for r in runs:
            if "decode" not in r["schedule"]:
                continue
            rows = {x["quantity"]: x for x in r.get("rows", [])}
            w = rows.get(W)
            if not w or w.get("measured") is None or w.get("predicted") is None:
                continue
            out.append((f.split("/")[1] if f.count("/") == 2 else "/".join(f.split("/")[1:3]), r, w, rows))
    # results/h200-2026-12-01b/decode: measured without predictions, re-predicted in repredicted.json
    for r in json.load(open("results/h200-2026-12-01b/decode/repredicted.json")):
        w = r[W]
        out.append(("h200-2026-12-01b/decode", r, {"predicted": w["now"], "measured": w["measured"]}, None))
    return out


def main():
    print("| run | schedule | problem (B×H/KVH, d, n_kv, causal window, page) | s | O + L | Opart + Lpart | "
          "predicted | measured | excess | L2 writes measured |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    excess = {"H100": [], "H200": []}
    over_l2 = 0
    not_bytes = []
    n = 0
    for where, r, w, rows in decode_rows():
        p, s = r["problem"], r["tile"].get("splits", 1)
        el = 2  # fp16 and bf16
        R = p["batch"] * p["heads"] * p["n"]
        o_l = R * p["d"] * el + R * 4
        part = s * R * (p["d"] + 1) * 4 if s > 1 else 0
        ex = w["measured"] - w["predicted"]
        gpu = "H100" if "h100" in where else "H200"
        excess[gpu].append(ex)
        l2 = rows["L2 writes from the SMs"]["measured"] if rows else None
        if l2 is not None and ex > l2:
            over_l2 += 1
        n += 1
        win = f"w{p.get('window', 0)}" if p.get("causal") else "-"
        print(f"| {where} | {r['schedule']} | {p['batch']}×{p['heads']}/{p.get('kv_heads') or p['heads']}, d {p['d']}, "
              f"{p['n_kv']}, {win}, {p.get('page_size', 0) or '-'} | {s} | {o_l} | {part} | {w['predicted']} | "
              f"{w['measured']} | {ex:+} ({100 * ex / w['predicted']:+.1f}%) | {l2 if l2 is not None else '—'} |")
        if w["predicted"] != o_l + part:
            not_bytes.append(f"{where} {r['schedule']} {p}: predicted {w['predicted']}, tensors {o_l + part}")
    print()
    print(f"{n} decode kernels; predictions other than the O + L + Opart + Lpart bytes: {len(not_bytes)}")
    for x in not_bytes:
        print("  " + x)
    for gpu, xs in excess.items():
        if xs:
            print(f"{gpu}: excess over {len(xs)} kernels: median {statistics.median(xs):.0f} B, "
                  f"range {min(xs)} to {max(xs)} B")
    print(f"kernels whose excess alone exceeds all the L2 write bytes they measured: {over_l2}")
    print()
    print("Clean-L2 drains in the committed profiler tests (run range: no global stores, 0 DRAM writes):")
    floors = []
    for f in sorted(glob.glob("results/**/*", recursive=True)):
        if not f.endswith((".txt", ".log")):
            continue
        try:
            txt = open(f, errors="replace").read()
        except OSError:
            continue
        prev, vals = None, []
        for name, body in re.findall(r"range '(\w+)':\n((?:  \S+\s+\S+\n)+)", txt):
            kv = dict(line.split() for line in body.strip().splitlines())
            if name == "run":
                prev = kv
            elif name == "drain" and prev is not None:
                if (float(prev.get("lts__t_sectors_srcunit_tex_op_write.sum", "nan")) == 0
                        and float(prev.get("lts__t_sectors_srcunit_tex_op_red.sum", "nan")) == 0
                        and float(prev.get("dram__bytes_write.sum", "nan")) == 0):
                    vals.append(int(float(kv["dram__bytes_write.sum"])))
                prev = None
        if vals:
            floors += vals
            print(f"  {f}: {vals}")
    if floors:
        print(f"  all {len(floors)}: median {statistics.median(floors):.0f} B, range {min(floors)} to {max(floors)} B")


main()
