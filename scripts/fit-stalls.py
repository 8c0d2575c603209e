#!/usr/bin/env python3
"""The dependency waits of a kernel family, from Nsight Compute's warp-state
counters, for the time model.

A warp that issues an instruction whose operand is still being computed waits. Two of ncu's stall
reasons are properties of a kernel's compiled code and of the latencies `iosim calibrate` measures,
not of how many warps share the SM (a third, dispatch_stall, is the issue cycles lost when the
scheduler picked a warp but could not dispatch its instruction; printed per family too):
  wait             a fixed-latency dependency (the stall count the compiler encodes in each SASS
                   instruction: an FMA's result, an integer op's, an HMMA's);
  short_scoreboard a variable-latency result from the SM's MIO unit (ldmatrix, shared-memory loads,
                   shuffles, MUFU's ex2).
This script reads `smsp__warps_issue_stalled_{wait,short_scoreboard}.sum` and `smsp__inst_executed.sum`
of every profiled variant (scripts/gpu stalls) and, per family, prints the medians the SM model's
family description takes (sim/schedule/<name>/families.cpp):
  wait_per_instruction  wait cycles per warp instruction issued;
  wait_per_mio          short-scoreboard cycles per MIO instruction the SM model counts (ldmatrix,
                        shuffle, ex2: `warp_instructions` of `--predict -f json`, from the model's
                        instruction-mix files, scripts/instruction-mix.py --json, at the same shape).
The other reasons (not selected, pipe throttles, barriers, long scoreboard) depend on sharing and on
memory; the SM model derives them. Counts, not times, are fitted.
The same three by the warps a sub-partition holds (the resident blocks' warps ÷ 4, from the launch's
occupancy limits and its grid): where a family was profiled with one warp a sub-partition, those are the
waits that do not depend on the resident warps (DependencyWaits), and the medians with more warps less
them what sharing adds (DependencyWaits::shared).
Each --mix goes with the --stalls of the same position where as many of each are given (a mix's
counts are whole kernels at its shape); otherwise every --mix serves every --stalls.

  scripts/fit-stalls.py --stalls ncu-stalls-2,16,2048,64.csv.gz --mix mix-d64.json \\
                        --stalls ncu-stalls-2,16,2048,128.csv.gz --mix mix-d128.json \\
                        [--stalls ncu-sdpa.csv.gz --mix mix-torch.json]
"""
import argparse
import importlib.util
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("instruction_mix", os.path.join(HERE, "instruction-mix.py"))
imix = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(imix)

FAMILY = {("flash2", "fwd", "iosim"): "fa2-fwd", ("flash2", "bwd", "iosim"): "fa2-bwd",
          ("flash1", "fwd", "iosim"): "fa1-fwd", ("flash1", "bwd", "iosim"): "fa1-bwd",
          ("flash2", "fwd", "pytorch"): "torch-fa2-fwd", ("flash2", "bwd", "pytorch"): "torch-fa2-bwd",
          ("flash3", "fwd", "iosim"): "fa3-fwd", ("flash3", "bwd", "iosim"): "fa3-bwd"}
MIO_KINDS = ("ldmatrix", "shuffle", "ex2")
# Families whose warps split B_r by rows (each warp owns B_r / warps rows of every product): their MIO
# waits are also given by the rows a warp owns, since an ldmatrix'd K or V fragment feeds one product
# per m16 tile of those rows, so that the more tiles, the more independent products hide its latency.
ROWS_SPLIT = ("fa2-fwd", "fa1-fwd", "torch-fa2-fwd")


def num(text):
    return float(str(text).replace(",", ""))


def stall(rec, reason):
    return num(rec[f"smsp__warps_issue_stalled_{reason}.sum"])


REASONS = ("selected", "wait", "short_scoreboard", "long_scoreboard", "barrier", "mio_throttle", "math_pipe_throttle",
           "not_selected", "dispatch_stall", "lg_throttle", "no_instruction")


def reasons_of(rec):
    """Cycles a warp spends per instruction issued, by ncu's stall reason (selected: issuing)."""
    inst = num(rec["smsp__inst_executed.sum"])
    return {r: stall(rec, r) / inst for r in REASONS}


def mix_models(mix_paths):
    model = {}
    for path in mix_paths:
        for r in json.load(open(path)):
            key = (r["schedule"], r["pass"], r["d"], r["br"], r["bc"], r["warps"], r["stages"], r["dtype"],
                   r.get("kernels", "iosim"))
            model[key] = r["model"]
    return model


def warps_per_smsp(rec, warps):
    """The warps a sub-partition holds: resident blocks (the launch's tightest occupancy limit, or fewer
    where the grid does not fill every SM once) × the block's warps ÷ 4, rounded up."""
    limit = min(int(num(rec[k])) for k in rec if k.startswith("launch__occupancy_limit_") and rec[k].strip())
    grid, sms = int(num(rec["launch__grid_size"])), int(num(rec["device__attribute_multiprocessor_count"]))
    return -(-min(limit, -(-grid // sms)) * warps // 4)


def kernel_rows(stall_paths, mix_paths):
    paired = len(mix_paths) == len(stall_paths)
    shared_model = {} if paired else mix_models(mix_paths)
    out = []
    for i, path in enumerate(stall_paths):
        model = mix_models([mix_paths[i]]) if paired else shared_model
        seen = {}
        for key, rec in imix.kernel_rows(path):
            # The first launch of a variant: iosim's variants run twice (cold, warm) at one shape; PyTorch's
            # run at several shapes, the first at the shape of the opcode histogram (the --mix file's).
            seen.setdefault(key, rec)
        for key, rec in seen.items():
            schedule, pss, d, br, bc, warps, stages, elem, kernels = key
            mkey = (schedule, pss, d, br, bc, warps, stages, "fp16" if elem == "__half" else "bf16", kernels)
            inst = num(rec["smsp__inst_executed.sum"])
            mix = model.get(mkey)
            mio = sum(mix.get(k, 0) for k in MIO_KINDS) if mix else 0
            out.append({"family": FAMILY[(schedule, pss, kernels)], "rows_per_warp": int(br) // int(warps),
                        "per_smsp": warps_per_smsp(rec, int(warps)),
                        "kernel": f"{kernels} {schedule} {pss} d{d} {br}x{bc} {warps}w{stages}s",
                        "wait_per_instruction": stall(rec, "wait") / inst,
                        "wait_per_mio": stall(rec, "short_scoreboard") / mio if mio else None,
                        "cpi": num(rec["smsp__warps_active.sum"]) / inst, "reasons": reasons_of(rec)})
    return out


def spread(v):
    v = [x for x in v if x is not None]
    return (statistics.median(v), min(v), max(v), len(v)) if v else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stalls", action="append", default=[],
                    help="ncu CSV of scripts/gpu stalls (iosim's kernels, or PyTorch's: ncu-sdpa.csv)")
    ap.add_argument("--mix", action="append", default=[], help="scripts/instruction-mix.py --json at the same shapes")
    ap.add_argument("--md", help="also write the tables here")
    ap.add_argument("--reasons", action="store_true",
                    help="also a table of every kernel's cycles per instruction by stall reason")
    a = ap.parse_args()
    if not a.stalls:
        print("fit-stalls.py: give --stalls (with --mix)", file=sys.stderr)
        return 2
    rows = kernel_rows(a.stalls, a.mix)
    lines = ["| kernel | family | cycles a warp spends per instruction | wait per instruction "
             "| short scoreboard per MIO instruction |",
             "|---|---|---|---|---|"]
    for r in rows:
        mio = r.get("wait_per_mio")
        lines.append(f"| {r['kernel']} | {r['family']} | {r['cpi']:.2f} | {r['wait_per_instruction']:.2f} | "
                     + (f"{mio:.1f}" if mio is not None else "-") + " |")
    lines += ["", "| family | variants | wait per instruction: median (min–max) "
              "| short scoreboard per MIO instruction: median (min–max) "
              "| dispatch stall per instruction: median (min–max) |",
              "|---|---|---|---|---|"]
    for fam in dict.fromkeys(r["family"] for r in rows):
        mine = [r for r in rows if r["family"] == fam]
        w = spread([r["wait_per_instruction"] for r in mine])
        s = spread([r.get("wait_per_mio") for r in mine])
        x = spread([r["reasons"]["dispatch_stall"] for r in mine])
        lines.append(f"| {fam} | {len(mine)} | {w[0]:.2f} ({w[1]:.2f}–{w[2]:.2f}) | "
                     + (f"{s[0]:.1f} ({s[1]:.1f}–{s[2]:.1f})" if s else "-")
                     + f" | {x[0]:.2f} ({x[1]:.2f}–{x[2]:.2f}) |")
    by_rows = [(fam, n) for fam in dict.fromkeys(r["family"] for r in rows) if fam in ROWS_SPLIT
               for n in sorted({r["rows_per_warp"] for r in rows if r["family"] == fam})]
    if by_rows:
        lines += ["", "By the rows a warp owns (B_r / warps), where the warps split the rows:", "",
                  "| family | rows a warp | variants | short scoreboard per MIO instruction: median (min–max) |",
                  "|---|---|---|---|"]
        for fam, n in by_rows:
            s = spread([r.get("wait_per_mio") for r in rows if r["family"] == fam and r["rows_per_warp"] == n])
            if s:
                lines.append(f"| {fam} | {n} | {s[3]} | {s[0]:.1f} ({s[1]:.1f}–{s[2]:.1f}) |")
    by_smsp = sorted({(r["family"], r["per_smsp"]) for r in rows})
    if len({n for _, n in by_smsp}) > 1:
        lines += ["", "By the warps a sub-partition holds (medians; the rows with one warp: the waits that do not "
                  "depend on the resident warps; the others less those: what sharing adds):", "",
                  "| family | warps a sub-partition | variants | wait per instruction | short scoreboard per MIO "
                  "instruction | dispatch stall per instruction | less one warp's: wait, MIO, dispatch |",
                  "|---|---|---|---|---|---|---|"]
        lone = {}
        for fam, n in by_smsp:
            mine = [r for r in rows if r["family"] == fam and r["per_smsp"] == n]
            w = spread([r["wait_per_instruction"] for r in mine])[0]
            s = spread([r.get("wait_per_mio") for r in mine])
            x = spread([r["reasons"]["dispatch_stall"] for r in mine])[0]
            s = s[0] if s else float("nan")
            if n == 1:
                lone[fam] = (w, s, x)
            less = (" | " + ", ".join(f"{v - one:+.2f}" for v, one in zip((w, s, x), lone[fam]))
                    if fam in lone and n > 1 else " | -")
            lines.append(f"| {fam} | {n} | {len(mine)} | {w:.2f} | {s:.2f} | {x:.2f}{less} |")
    if a.reasons:
        lines += ["", "Cycles a warp spends per instruction it issues, by ncu's stall reason (selected = issuing):", "",
                  "| kernel | " + " | ".join(REASONS) + " |", "|---|" + "---|" * len(REASONS)]
        for r in rows:
            lines.append(f"| {r['kernel']} | " + " | ".join(f"{r['reasons'][x]:.2f}" for x in REASONS) + " |")
    text = "\n".join(lines) + "\n"
    if a.md:
        open(a.md, "w").write(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
