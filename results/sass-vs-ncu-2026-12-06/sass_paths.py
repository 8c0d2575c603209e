"""The flash2 forward kernels' K/V loop in SASS against ncu's instructions per step (README.md).

    PYTHONPATH=build/python python3 results/sass-vs-ncu-2026-12-06/sass_paths.py CUBIN_DIR

CUBIN_DIR: the cubins of `generate_kernels.py --full`'s instantiation files, `nvcc -O3 -arch=sm_90 -cubin`.
Prints one line a kernel: (d, B_r, B_c, warps, stages) shortest longest measured.
"""
import glob
import json
import re
import sys

from iosim.triton import sass

MIX = ["results/h200-2026-12-01b/instruction-mix/mix-d64.json",
       "results/h200-2026-12-01b/instruction-mix/mix-d128.json"]


def unconditional(ins):
    op = ins.opcode.split(".")[0]
    return (op in ("BRA", "JMP", "EXIT", "RET")) and not ins.predicate


def paths(instructions, loop):
    """The fewest and most instructions issued from the loop's head to its backward branch, each forward
    branch taken or not (a DAG over the body in address order)."""
    body = [i for i in instructions if loop.contains(i.addr)]
    index = {i.addr: k for k, i in enumerate(body)}
    n = len(body)
    lo, hi = [float("inf")] * (n + 1), [float("-inf")] * (n + 1)
    lo[0] = hi[0] = 0
    for k, ins in enumerate(body):
        if lo[k] == float("inf"):
            continue
        succ = []
        if ins.addr == loop.end:
            succ.append(n)
        else:
            if ins.target is not None and ins.target > ins.addr and ins.target in index:
                succ.append(index[ins.target])
            if not unconditional(ins):
                succ.append(k + 1)
        for s in succ:
            lo[s], hi[s] = min(lo[s], lo[k] + 1), max(hi[s], hi[k] + 1)
    return lo[n], hi[n]


def main(cubin_dir):
    measured = {}
    for path in MIX:
        for r in json.load(open(path)):
            if r["schedule"] == "flash2" and r["pass"] == "fwd":
                key = (r["d"], r["br"], r["bc"], r["warps"], r["stages"])
                measured[key] = r["measured_total"] / r["warp_steps"]
    for cubin in sorted(glob.glob(f"{cubin_dir}/flash2_fwd_*_fp16_*.cubin")):
        text = sass.disassemble(open(cubin, "rb").read())
        parts = re.split(r"\n\s*\.text\.(\S+):", text)
        for name, body in zip(parts[1::2], parts[2::2]):
            m = re.search(r"Flash2FwdTraitsILi(\d+)ELi(\d+)ELi(\d+)ELi(\d+)ELi(\d+)E", name)
            if not m:
                continue
            key = tuple(int(x) for x in m.groups())
            instructions = sass.parse(body)
            top = [lp for lp in sass.find_loops(instructions) if lp.depth == 0]
            if not top:
                continue
            lo, hi = paths(instructions, max(top, key=lambda lp: lp.end - lp.start))
            m = measured.get(key)
            print(key, lo, hi, round(m, 1) if m else None)


if __name__ == "__main__":
    main(sys.argv[1])
