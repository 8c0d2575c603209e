#!/usr/bin/env python3
"""The SM model's warp instructions beside what the kernels executed (ncu, scripts/gpu instruction-mix).

For every flash kernel variant ncu profiled, runs `iosim --predict -f json` on the same problem and
tile and sets the model's `warp_instructions` by kind beside ncu's executed-instruction histogram by
SASS opcode (sass__inst_executed_per_opcode), grouped into the same kinds plus those the model does
not issue (integer and address arithmetic, conversions, shared-memory loads and stores, control).
Writes a Markdown table (one row per variant, instructions per warp and step) and a JSON file.

  scripts/instruction-mix.py --opcodes results/.../ncu-opcodes-2,16,2048,64.csv.gz --shape 2,16,2048,64 \
      --config configs/h200.yaml [--iosim build/iosim] [--md OUT.md] [--json OUT.json]
"""
import argparse
import csv
import gzip
import json
import re
import statistics
import subprocess
import sys

# SASS opcodes (without modifiers) by kind. The first nine kinds are the SM model's
# (sim/timing/instruction_mix.h); the rest it does not issue.
KINDS = {
    "mma": ["HMMA"],
    "ldmatrix": ["LDSM"],
    "fp32": ["FMUL", "FFMA", "FADD", "FMNMX", "FSEL", "FSETP", "FCHK"],
    "ex2": ["MUFU"],
    "shuffle": ["SHFL"],
    "barrier": ["BAR"],
    "load": ["LDGSTS"],
    "store": ["STG"],
    "reduce": ["RED", "ATOM", "REDG"],
    # not in the model
    "convert": ["F2FP", "F2F", "I2FP", "F2I", "I2F", "HADD2", "HMUL2", "HFMA2"],
    "shared ld/st": ["LDS", "STS"],
    "global ld": ["LDG", "LD", "LDC"],
    "integer": ["IMAD", "IADD3", "VIADD", "ISETP", "SHF", "LOP3", "LEA", "SEL", "IABS", "IMNMX", "PRMT", "MOV",
                "CS2R", "S2R", "POPC", "FLO", "BMSK", "SGXT", "VIMNMX", "P2R", "R2P", "PLOP3"],
    "control": ["BRA", "BSSY", "BSYNC", "NOP", "DEPBAR", "LDGDEPBAR", "EXIT", "WARPSYNC", "CALL", "RET", "YIELD",
                "BPT", "JMP", "MEMBAR", "ERRBAR", "CCTL"],
}
MODEL_KINDS = ["mma", "ldmatrix", "fp32", "ex2", "shuffle", "barrier", "load", "store", "reduce"]
OF_OPCODE = {op: kind for kind, ops in KINDS.items() for op in ops}
# Where ncu gave no opcode histogram, its per-pipe counts (smsp__inst_executed_pipe_<pipe>.sum; these
# pipes do not overlap): the tensor pipe is the model's mma, the XU pipe (MUFU, conversions) its ex2;
# the rest by pipe, and what no pipe counter counts as "unpiped".
PIPES = ["tensor", "xu", "fma", "alu", "lsu", "uniform", "adu", "cbu", "tma", "fp64"]
OF_PIPE = {"tensor": "mma", "xu": "ex2"}

NAME = re.compile(r"(flash[12])_(fwd|bwd)_kernel<(__half|__nv_bfloat16), \w+<([^>]*)>")
# PyTorch's FlashAttention-2 (SDPA's flash backend, scripts/sdpa-profile.py): the forward and the
# backward's main kernel, whose traits are <head dim, rows of Q (B_r), rows of K/V (B_c), warps, ...>.
TORCH_NAME = re.compile(r"\b(flash_fwd|flash_bwd_dq_dk_dv_loop_seqk_parallel)_kernel<Flash_(?:fwd|bwd)_kernel_traits"
                        r"<(\d+), (\d+), (\d+), (\d+), .*?(half_t|bfloat16_t)")


def kind_of(opcode):
    if opcode.startswith("pipe "):
        return OF_PIPE.get(opcode[5:], opcode)
    if opcode in OF_OPCODE:
        return OF_OPCODE[opcode]
    if opcode == "?":
        return "unknown"
    if opcode.startswith("U"):
        return "uniform"
    return "other"


def parse_histogram(cell):
    """'43,421,696 (HMMA: 8,388,608; FMUL: ...)' -> {opcode: count}."""
    inner = cell[cell.index("(") + 1:cell.rindex(")")]
    out = {}
    for item in inner.split(";"):
        op, _, n = item.strip().rpartition(":")
        out[op.strip()] = int(n.replace(",", ""))
    return out


# iosim's flash3 kernels (cuda/kernels/flash3): <element, d, B_r, B_c, stages, ...>; the block is one
# producer warpgroup and the consumers, whose warps are the model's.
FLASH3_NAME = re.compile(r"\b(fwd|bwd)_kernel<(?:Fwd|Bwd)Traits<(half_t|bfloat16_t), (\d+), (\d+), (\d+), (\d+)")


def kernel_rows(path):
    """(key, record) for every profiled launch of a flash kernel in an ncu CSV (--page raw), key =
    (schedule, pass, d, B_r, B_c, warps, stages, element type, kernels) from the kernel's template
    arguments; kernels is "iosim" (cuda/kernels) or "pytorch" (SDPA's flash backend: flash2 in the
    model, at the stages the model gives PyTorch's kernels)."""
    opener = gzip.open if path.endswith(".gz") else open
    rows = list(csv.reader(opener(path, "rt", newline="")))
    head = next(i for i, r in enumerate(rows) if r and r[0] == "ID")
    cols = rows[head]
    for r in rows[head + 2:]:
        rec = dict(zip(cols, r))
        name = rec.get("Kernel Name", "")
        m = NAME.search(name)
        if m:
            schedule, pss, elem, args = m.groups()
            nums = [int(x) for x in re.findall(r"\b\d+\b", args)]
            warps = int(rec["Block Size"].strip("()").split(",")[0]) // 32
            d, br, bc = nums[0], nums[1], nums[2]
            stages = nums[4] if schedule == "flash2" and pss == "fwd" and len(nums) >= 5 else 1
            yield (schedule, pss, d, br, bc, warps, stages, elem, "iosim"), rec
            continue
        m = FLASH3_NAME.search(name)
        if m:
            pss, elem, d, br, bc, stages = m.groups()
            warps = int(rec["Block Size"].strip("()").split(",")[0]) // 32 - 4
            yield ("flash3", pss, int(d), int(br), int(bc), warps, int(stages),
                   "__half" if elem == "half_t" else "__nv_bfloat16", "iosim"), rec
            continue
        m = TORCH_NAME.search(name)
        if m:
            kind, d, br, bc, warps, elem = m.groups()
            pss = "fwd" if kind == "flash_fwd" else "bwd"
            yield ("flash2", pss, int(d), int(br), int(bc), int(warps), 2 if pss == "fwd" else 1,
                   "__half" if elem == "half_t" else "__nv_bfloat16", "pytorch"), rec


def variants(path):
    seen = {}
    for key, rec in kernel_rows(path):
        # Each variant ran twice (cold, warm): the same instructions; keep the first. Without the
        # histogram (the hardware-counter run), the total alone.
        if "sass__inst_executed_per_opcode" in rec:
            seen.setdefault(key, parse_histogram(rec["sass__inst_executed_per_opcode"]))
        elif "smsp__inst_executed_pipe_tensor.sum" in rec:
            hist = {f"pipe {p}": int(rec[f"smsp__inst_executed_pipe_{p}.sum"].replace(",", "")) for p in PIPES
                    if f"smsp__inst_executed_pipe_{p}.sum" in rec}
            hist["pipe unpiped"] = int(rec["smsp__inst_executed.sum"].replace(",", "")) - sum(hist.values())
            seen.setdefault(key, hist)
        else:
            seen.setdefault(key, {"?": int(rec["smsp__inst_executed.sum"].replace(",", ""))})
    return seen


def predict(iosim, config, shape, key):
    schedule, pss, d, br, bc, warps, stages, elem, kernels = key
    b, h, n, _ = shape
    if schedule == "flash3":
        warps += 4  # iosim's --warps counts the producer warpgroup's too
    cmd = [iosim, "--config", config, "--schedule", schedule, "--pass", pss, "--batch", str(b), "--heads", str(h),
           "--n", str(n), "--d", str(d), "--br", str(br), "--bc", str(bc), "--warps", str(warps), "--predict",
           "-f", "json", "--quiet"]
    if schedule == "flash2" and pss == "fwd":
        cmd += ["--stages", str(stages)]
    if elem != "__half":
        cmd += ["--dtype", "bf16"]
    if kernels != "iosim":
        cmd += ["--kernels", kernels]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        return None, res.stderr.strip().splitlines()[-1] if res.stderr else f"exit {res.returncode}"
    sched = json.loads(res.stdout)["runs"][0]["schedules"][0]
    kern = next(k for k in sched["predicted"]["cold"]["kernels"] if k["name"] == f"{schedule}_{pss}")
    return kern, None


def steps_of(key, shape):
    """Warp-steps of the main kernel: blocks × warps × inner-loop iterations of a block."""
    schedule, pss, d, br, bc, warps, stages, elem, _ = key
    b, h, n, _ = shape
    tr, tc = -(-n // br), -(-n // bc)
    if schedule in ("flash2", "flash3"):
        blocks, steps = (b * h * tr, tc) if pss == "fwd" else (b * h * tc, tr)
    else:
        blocks, steps = b * h, tr * tc
    return blocks * warps * steps


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--opcodes", required=True,
                    help="ncu CSV with sass__inst_executed_per_opcode (or smsp__inst_executed.sum: totals only)")
    ap.add_argument("--shape", required=True, help="B,H,N,D the kernels ran at")
    ap.add_argument("--config", default="configs/h200.yaml")
    ap.add_argument("--iosim", default="build/iosim")
    ap.add_argument("--md")
    ap.add_argument("--json")
    a = ap.parse_args()
    shape = tuple(int(x) for x in a.shape.split(","))
    rows = []
    for key, hist in sorted(variants(a.opcodes).items()):
        measured = {}
        for op, n in hist.items():
            measured[kind_of(op)] = measured.get(kind_of(op), 0) + n
        kern, err = predict(a.iosim, a.config, shape, key)
        model = kern["time"]["warp_instructions"] if kern else {}
        rows.append({"schedule": key[0], "pass": key[1], "d": key[2], "br": key[3], "bc": key[4], "warps": key[5],
                     "stages": key[6], "dtype": "fp16" if key[7] == "__half" else "bf16", "kernels": key[8],
                     "warp_steps": steps_of(key, shape), "measured": measured, "measured_total": sum(hist.values()),
                     "model": model, "model_error": err})
    kinds = MODEL_KINDS + [k for k in list(KINDS)[len(MODEL_KINDS):]] + ["uniform", "other"]
    kinds += sorted({k for r in rows for k in r["measured"] if k.startswith("pipe ")})
    lines = [f"Warp instructions per warp and step: model / measured (ncu), shape B,H,N,D = {a.shape}", ""]
    lines.append("| kernel | tile | " + " | ".join(kinds) + " | total | model total / measured |")
    lines.append("|---|---|" + "---|" * (len(kinds) + 2))
    ratios = {}
    for r in rows:
        s = r["warp_steps"]
        cells = []
        for k in kinds:
            m = r["measured"].get(k, 0) / s
            if k in MODEL_KINDS and r["model"]:
                p = r["model"].get(k, 0) / s
                cells.append(f"{p:.0f} / {m:.0f}")
            else:
                cells.append(f"– / {m:.0f}" if m else "–")
        tot_m = r["measured_total"] / s
        tot_p = r["model"].get("total", 0) / s if r["model"] else 0
        ratio = tot_p / tot_m if tot_m and tot_p else None
        ratios.setdefault(f'{r["kernels"]} {r["schedule"]} {r["pass"]}', []).append(ratio)
        tile = f'{r["br"]}x{r["bc"]} {r["warps"]}w{r["stages"]}s d{r["d"]}'
        lines.append(f'| {r["kernels"]} {r["schedule"]} {r["pass"]} | {tile} | ' + " | ".join(cells) +
                     f" | {tot_p:.0f} / {tot_m:.0f} | " + (f"{ratio:.2f}" if ratio else r["model_error"] or "-") + " |")
    lines += ["", "| kernels | variants | model total / measured, median | min | max |", "|---|---|---|---|---|"]
    for k, v in ratios.items():
        v = [x for x in v if x]
        if v:
            lines.append(f"| {k} | {len(v)} | {statistics.median(v):.2f} | {min(v):.2f} | {max(v):.2f} |")
    text = "\n".join(lines) + "\n"
    if a.md:
        open(a.md, "w").write(text)
    if a.json:
        json.dump(rows, open(a.json, "w"), indent=1)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
