"""One unmasked K/V step of iosim's flash2 forward kernels, from their SASS and line information, against
ncu's executed instructions per step and the fitted StepOverhead (README.md).

    PYTHONPATH=build/python python3 results/sass-lineinfo-2026-12-06/sass_lineinfo.py SASS_DIR [KERNEL_SOURCE]

SASS_DIR: `nvdisasm -gi -c` of the cubins of `generate_kernels.py --full`'s flash2 forward fp16
instantiation files (`nvcc -O3 -DNDEBUG -arch=sm_90 -cubin -lineinfo`), one *.sass file each.
KERNEL_SOURCE: the flash2_fwd.cuh they were compiled from (cuda/kernels/flash2_fwd.cuh by default);
its line numbers name the regions of the K/V loop.
Each instruction is attributed to the line of flash2_fwd.cuh it comes from (nvdisasm's innermost
annotation that is not inlined: the kernel's own line, through any inlined helper). An unmasked
steady-state step is a path from the loop's head to its backward branch that runs no instruction of
the masking block and none of the prefetch's else branch (the last steps' wait); its shortest and
longest such path are printed, with the code outside the loop (prologue and epilogue, shortest and
longest path) spread over the steps of the measured problem, against ncu's count.
"""
import json
import re
import statistics
import sys
from pathlib import Path

from iosim.triton import sass

MIX = ["results/h200-2026-12-01b/instruction-mix/mix-d64.json",
       "results/h200-2026-12-01b/instruction-mix/mix-d128.json"]
N = 2048          # the measured problem: (2, 16, 2048, d), not causal
LINE = re.compile(r'//## File "[^"]*/flash2_fwd\.cuh", line (\d+)\s*$')
TRAITS = re.compile(r"Flash2FwdTraitsILi(\d+)ELi(\d+)ELi(\d+)ELi(\d+)ELi(\d+)E")


def block_lines(text, start):
    """The 1-based numbers of the lines inside the braced block that line index `start` opens."""
    depth = 1
    for i in range(start + 1, len(text)):
        depth += text[i].count("{") - text[i].count("}")
        if depth == 0:
            return range(start + 2, i + 1)
    raise ValueError(f"unclosed block at line {start + 1}")


def regions(source):
    """Source lines of the masked step's code (the first `if (… n_kv …) {` block after the barrier that
    ends the prefetch) and of the prefetch's else branch (the last steps' wait)."""
    text = source.splitlines()
    pre = next(i for i, line in enumerate(text) if "if (j + kAhead < kv_tiles) {" in line)
    els = next(i for i in range(pre, len(text)) if text[i].strip() == "} else {")
    bar = next(i for i in range(els, len(text)) if "__syncthreads();" in text[i])
    mask = next(i for i in range(bar, len(text)) if re.match(r"\s*if \(.*n_kv.*\) \{$", text[i]))
    return set(block_lines(text, mask)), set(block_lines(text, els))


def functions(text):
    """(traits key, instructions, {address: kernel line}) of each flash2 forward kernel in a -gi listing."""
    parts = re.split(r"\n\s*\.text\.(\S+):", text)
    for name, body in zip(parts[1::2], parts[2::2]):
        m = TRAITS.search(name)
        if not m:
            continue
        lines, cur = {}, None
        for ln in body.splitlines():
            mm = LINE.search(ln)
            if mm:
                cur = int(mm.group(1))
                continue
            mi = sass._INSTR.search(ln)
            if mi:
                lines[int(mi.group(1), 16)] = cur
        yield tuple(int(x) for x in m.groups()), sass.parse(body), lines


def unconditional(ins):
    return ins.opcode.split(".")[0] in ("BRA", "JMP", "EXIT", "RET") and not ins.predicate


def paths(body, source, sinks, allowed):
    """Fewest and most instructions on a path from body[source] to any index in `sinks` (counting the
    sink instruction; None: past the end), through allowed instructions only, forward branches taken or
    not, backward ones not taken."""
    index = {ins.addr: k for k, ins in enumerate(body)}
    n = len(body)
    lo, hi = [float("inf")] * (n + 1), [float("-inf")] * (n + 1)
    lo[source] = hi[source] = 0
    best = [float("inf"), float("-inf")]
    for k in range(source, n):
        ins = body[k]
        if lo[k] == float("inf") or not allowed(ins):
            continue
        a, b = lo[k] + 1, hi[k] + 1
        if k in sinks:
            best = [min(best[0], a), max(best[1], b)]
            continue
        if ins.opcode.startswith("EXIT") and not ins.predicate:
            continue
        succ = []
        if ins.target is not None and ins.target > ins.addr and ins.target in index:
            succ.append(index[ins.target])
        if not unconditional(ins):
            succ.append(k + 1)
        for s in succ:
            lo[s], hi[s] = min(lo[s], a), max(hi[s], b)
    if None in sinks and lo[n] < float("inf"):
        best = [min(best[0], lo[n]), max(best[1], hi[n])]
    return best


def analyse(instructions, lines, mask, last):
    top = [lp for lp in sass.find_loops(instructions) if lp.depth == 0]
    loop = max(top, key=lambda lp: lp.end - lp.start)
    index = {ins.addr: k for k, ins in enumerate(instructions)}
    head, back = index[loop.start], index[loop.end]

    def steady(ins):
        return lines.get(ins.addr) not in mask and lines.get(ins.addr) not in last

    step = paths(instructions, head, {back}, steady)
    any_step = paths(instructions, head, {back}, lambda ins: True)
    # Outside the loop: entry to the head, loop exit to an EXIT (no instruction of the loop counted).
    outside = lambda ins: not loop.contains(ins.addr)   # noqa: E731
    exits = {k for k, ins in enumerate(instructions) if ins.opcode.startswith("EXIT") and k > back}
    pro = paths(instructions[:head] + [instructions[head]], 0, {head}, lambda ins: True)
    epi = paths(instructions, back + 1, exits, outside)
    return step, any_step, (pro[0] - 1, pro[1] - 1), epi


def main(sass_dir, kernel_source):
    source = Path(kernel_source).read_text()
    mask, last = regions(source)
    measured = {}
    for path in MIX:
        for r in json.load(open(path)):
            if r["schedule"] == "flash2" and r["pass"] == "fwd" and r["dtype"] == "fp16":
                measured[(r["d"], r["br"], r["bc"], r["warps"], r["stages"])] = r["measured_total"] / r["warp_steps"]
    rows = []
    for f in sorted(Path(sass_dir).glob("*.sass")):
        for key, instructions, lines in functions(f.read_text()):
            step, any_step, pro, epi = analyse(instructions, lines, mask, last)
            steps = N // key[2]
            got = measured.get(key)
            if got is None:
                continue
            lo = step[0] + (pro[0] + epi[0]) / steps
            hi = step[1] + (pro[1] + epi[1]) / steps
            rows.append((key, step, any_step, pro, epi, lo, hi, got))
    print("(d, B_r, B_c, warps, stages)  step[lo,hi]  any-path[lo,hi]  prologue  epilogue  "
          "per-step-with-fixed[lo,hi]  ncu  err(lo)")
    for key, step, any_step, pro, epi, lo, hi, got in rows:
        print(key, step, any_step, pro, epi, round(lo, 1), round(hi, 1), round(got, 1), f"{100 * (lo / got - 1):+.1f}%")
    for name, at in (("shortest prologue and epilogue", 5), ("longest", 6)):
        errs = sorted((abs(r[at] / r[7] - 1), r[0]) for r in rows)
        print(f"{len(errs)} kernels, {name}: median |error| {100 * statistics.median(e for e, _ in errs):.1f}%, "
              f"largest {100 * errs[-1][0]:.1f}% {errs[-1][1]}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "cuda/kernels/flash2_fwd.cuh")
