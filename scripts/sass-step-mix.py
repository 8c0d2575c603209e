#!/usr/bin/env python3
"""One K/V step of iosim's flash2 forward kernels, unmasked and masked, by pipe, from their SASS and line information.

  sass-step-mix.py --table OUT.csv [--arch 90]   compile every flash2 forward row of cuda/kernels/menu.csv
                                                 (nvcc -O3 -DNDEBUG -arch=sm_ARCH -cubin -lineinfo, one
                                                 instantiation file of generate_kernels.py --full at a time),
                                                 disassemble (the triton wheel's nvdisasm -gi -c) and write
                                                 the table the time model reads (cuda/kernels/step-mix-sm90.csv)
  sass-step-mix.py --excerpt LISTING OUT         one kernel of an nvdisasm -gi -c listing cut to the
                                                 instructions and the kernel's own line annotations
  sass-step-mix.py --check TABLE LISTING...      exit 1 where a listing's kernel derives a row that differs
                                                 from TABLE's (or TABLE has none); 0 where all match

Every instruction belongs to the line of flash2_fwd.cuh it comes from: the innermost annotation that
names the kernel's file and is not "inlined at" (the kernel's own line, through any inlined helper).
The K/V loop is the kernel's outermost loop; an unmasked steady-state step is a path from its head to
its backward branch that runs no instruction of the masking block (the first `if (… n_kv …) {` after
the barrier that ends the prefetch) and none of the prefetch's `else` (the last steps' wait), forward
branches taken or not. The step must be one path (its shortest and longest the same), else the kernel
gets no row. A masked step (a tile the causal diagonal, a window's edge or n_kv crosses) is such a path
that runs the masking block (and the prefetch, not its else). nvcc compiles that block twice where the
mask's test of p.window > 0 lets it drop the window's comparison from one copy: two lengths, the fewer
`masked` (no window: causal, or the last tile's n_kv) and the more `window`; one length is `masked` alone;
any other number, no masked row. Counts are per warp: each warp issues every instruction of the path
once (predicated off or not). Prologue and epilogue are left out: the table is a step's, as the time model prices steps.

The unmasked rows were checked against ncu's executed instructions per warp and step on 42 kernels
(results/sass-lineinfo-2026-12-06); the masked rows are not so checked.
A malformed table or listing: one line naming it, exit 2.
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# sass.py and pipes.py of python/iosim/triton, without the iosim package (whose __init__ needs the built module).
_pkg = types.ModuleType("_iosim_sass")
_pkg.__path__ = [str(ROOT / "python" / "iosim" / "triton")]
sys.modules["_iosim_sass"] = _pkg
from _iosim_sass import pipes, sass  # noqa: E402

SOURCE = ROOT / "cuda" / "kernels" / "flash2_fwd.cuh"
KERNEL = "flash2_fwd"
KEY = ["kernel", "d", "dtype", "br", "bc", "warps", "stages", "arch", "step"]
STEPS = ("unmasked", "masked", "window")
COLUMNS = KEY + list(pipes.PIPES) + ["total"]
LINE = re.compile(r'//## File "[^"]*/flash2_fwd\.cuh", line (\d+)\s*$')
TRAITS = re.compile(r"flash2_fwd_kernelI(6__half|13__nv_bfloat16)NS\d+_15Flash2FwdTraits"
                    r"ILi(\d+)ELi(\d+)ELi(\d+)ELi(\d+)ELi(\d+)E")
DTYPE = {"6__half": "fp16", "13__nv_bfloat16": "bf16"}


def fail(msg):
    print(f"sass-step-mix: {msg}", file=sys.stderr)
    sys.exit(2)


def block_lines(text, start):
    """The 1-based numbers of the lines inside the braced block that line index `start` opens."""
    depth = 1
    for i in range(start + 1, len(text)):
        depth += text[i].count("{") - text[i].count("}")
        if depth == 0:
            return set(range(start + 2, i + 1))
    fail(f"{SOURCE}: the block at line {start + 1} does not close")


def regions(source):
    """The kernel's lines of the masking block, and of the prefetch's else branch."""
    text = source.splitlines()
    try:
        pre = next(i for i, line in enumerate(text) if "if (j + kAhead < kv_tiles) {" in line)
        els = next(i for i in range(pre, len(text)) if text[i].strip() == "} else {")
        bar = next(i for i in range(els, len(text)) if "__syncthreads();" in text[i])
        mask = next(i for i in range(bar, len(text)) if re.match(r"\s*if \(.*n_kv.*\) \{$", text[i]))
    except StopIteration:
        fail(f"{SOURCE}: no prefetch, else branch or masking block found in the K/V loop")
    return block_lines(text, mask), block_lines(text, els)


def functions(text):
    """(name, key dict, body text) of each flash2 forward kernel of a -gi -c listing."""
    parts = re.split(r"\n\s*\.text\.(\S+):", text)
    for name, body in zip(parts[1::2], parts[2::2]):
        m = TRAITS.search(name)
        if m:
            d, br, bc, warps, stages = (int(x) for x in m.groups()[1:])
            yield name, {"kernel": KERNEL, "d": d, "dtype": DTYPE[m.group(1)], "br": br, "bc": bc,
                         "warps": warps, "stages": stages}, body


def kernel_lines(body):
    """{address: kernel line} of a function's body."""
    lines, cur = {}, None
    for ln in body.splitlines():
        mm = LINE.search(ln)
        if mm:
            cur = int(mm.group(1))
            continue
        mi = sass._INSTR.search(ln)
        if mi:
            lines[int(mi.group(1), 16)] = cur
    return lines


def unconditional(ins):
    return pipes.base(ins.opcode) in ("BRA", "JMP", "EXIT", "RET") and not ins.predicate


def step_paths(instructions, loop, allowed, through=lambda ins: True):
    """The loop's paths from head to backward branch through allowed instructions only (forward branches
    taken or not) that run at least one `through` instruction: {length: the instructions of one such path}."""
    body = [i for i in instructions if loop.contains(i.addr)]
    index = {ins.addr: k for k, ins in enumerate(body)}
    n = len(body)
    # reach[k][seen]: {length of a path from the head to body[k]: (previous index, its seen)}
    reach = [[{}, {}] for _ in range(n)]
    if allowed(body[0]):
        reach[0][bool(through(body[0]))][1] = None
    for k, ins in enumerate(body):
        if ins.addr == loop.end:
            continue
        succ = []
        if ins.target is not None and ins.target > ins.addr and ins.target in index:
            succ.append(index[ins.target])
        if not unconditional(ins):
            succ.append(k + 1)
        for seen in (False, True):
            for length in reach[k][seen]:
                for s in succ:
                    if s < n and allowed(body[s]):
                        now = seen or bool(through(body[s]))
                        reach[s][now].setdefault(length + 1, (k, seen))
    paths = {}
    for length in reach[n - 1][True]:
        path, k, seen, left = [], n - 1, True, length
        while True:
            path.append(body[k])
            came = reach[k][seen][left]
            if came is None:
                break
            (k, seen), left = came, left - 1
        paths[length] = path
    return paths


def mix(path):
    counts = pipes.empty_counts()
    for ins in path:
        counts[pipes.classify(ins.opcode)] += 1
    return {**counts, "total": len(path)}


def derive(listing, masked_lines, arch):
    """The table rows of every flash2 forward kernel in a -gi -c listing: its unmasked step, where that
    is one path, and its masked step (one length: `masked`; two, the masking block compiled once for
    p.window > 0 and once for none: `masked` the fewer, `window` the more). A kernel whose steps are not
    so gets none of those rows (its reason on stderr)."""
    mask, other = masked_lines
    rows = []
    for name, key, body in functions(listing):
        instructions = sass.parse(body)
        lines = kernel_lines(body)
        top = [lp for lp in sass.find_loops(instructions) if lp.depth == 0]
        if not top:
            print(f"sass-step-mix: {name}: no loop", file=sys.stderr)
            continue
        loop = max(top, key=lambda lp: lp.end - lp.start)
        row = {**key, "arch": f"sm_{arch}"}
        plain = step_paths(instructions, loop, lambda ins: lines.get(ins.addr) not in mask | other)
        if len(plain) != 1:
            print(f"sass-step-mix: {name}: the unmasked step is not one path ({sorted(plain)})", file=sys.stderr)
            continue
        rows.append({**row, "step": "unmasked", **mix(next(iter(plain.values())))})
        masked = step_paths(instructions, loop, lambda ins: lines.get(ins.addr) not in other,
                            lambda ins: lines.get(ins.addr) in mask)
        if len(masked) not in (1, 2):
            print(f"sass-step-mix: {name}: the masked step is {len(masked)} paths ({sorted(masked)})", file=sys.stderr)
            continue
        for step, length in zip(("masked", "window"), sorted(masked)):
            rows.append({**row, "step": step, **mix(masked[length])})
    return rows


def listing_arch(listing):
    m = re.search(r"\.target\s+sm_(\d+)", listing)
    return int(m.group(1)) if m else None


def read_table(path):
    """The rows of a step-mix table, each checked."""
    with open(path, encoding="utf-8") as f:
        lines = [(i, line) for i, line in enumerate(f, 1) if line.strip() and not line.startswith("#")]
    if not lines or [c.strip() for c in lines[0][1].split(",")] != COLUMNS:
        fail(f"{path}: the first row must name the columns {','.join(COLUMNS)}")
    rows = []
    for lineno, line in lines[1:]:
        cells = [c.strip() for c in line.split(",")]
        if len(cells) != len(COLUMNS):
            fail(f"{path}:{lineno}: {len(cells)} cells, not {len(COLUMNS)}")
        r = dict(zip(COLUMNS, cells))
        for k in COLUMNS:
            if k not in ("kernel", "dtype", "arch", "step"):
                if not r[k].isdigit():
                    fail(f"{path}:{lineno}: {k} must be a whole number, not '{r[k]}'")
                r[k] = int(r[k])
        if r["step"] not in STEPS:
            fail(f"{path}:{lineno}: step must be one of {', '.join(STEPS)}, not '{r['step']}'")
        if sum(r[p] for p in pipes.PIPES) != r["total"]:
            fail(f"{path}:{lineno}: the pipes add up to {sum(r[p] for p in pipes.PIPES)}, not total {r['total']}")
        rows.append(r)
    return rows


def write_table(path, rows, arch, nvcc):
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"# Warp instructions of one steady-state K/V step of iosim's flash2 forward kernels, by pipe\n"
                f"# (python/iosim/triton/pipes.py), as compiled for sm_{arch} by nvcc {nvcc}: written by\n"
                f"# scripts/sass-step-mix.py --table from each menu variant's SASS and line information. step:\n"
                f"# unmasked (no masking block), masked (through it), window (through its copy for a sliding\n"
                f"# window, where the compiler made one). The time model prices a step of these variants from\n"
                f"# here (\"sass\"), of any other from its fitted overhead (\"fit\").\n")
        f.write(",".join(COLUMNS) + "\n")
        for r in sorted(rows, key=lambda r: tuple(r[k] for k in KEY)):
            f.write(",".join(str(r[c]) for c in COLUMNS) + "\n")


def nvdisasm_gi(cubin):
    return subprocess.run([sass.tool("nvdisasm"), "-ndf", "-gi", "-c", cubin], check=True, capture_output=True,
                          text=True).stdout


def build_table(out, arch):
    nvcc = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc")
    if not os.access(nvcc, os.X_OK):
        fail(f"no nvcc at {nvcc} (set CUDA_HOME)")
    version = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"release ([\d.]+), (V[\d.]+)", version)
    masked = regions(SOURCE.read_text())
    gen = ROOT / "cuda" / "kernels" / "generate_kernels.py"
    menu = ROOT / "cuda" / "kernels" / "menu.csv"
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        inc = os.path.join(tmp, "include", "iosim_generated")
        os.makedirs(inc)
        subprocess.run([sys.executable, gen, menu, "--model", os.path.join(inc, "kernel_menu.h")], check=True)
        subprocess.run([sys.executable, gen, menu, "--cuda", tmp, "--full"], check=True)
        # The instantiation files lie in a folder per kernel architecture (inst/sm80/ for flash2's).
        for src in sorted(glob.glob(os.path.join(tmp, "inst", "**", f"{KERNEL}_*.cu"), recursive=True)):
            cubin = src[:-3] + ".cubin"
            subprocess.run([nvcc, "-O3", "-DNDEBUG", "-std=c++20", f"-arch=sm_{arch}", "-cubin", "-lineinfo",
                            f"-I{ROOT}", f"-I{tmp}", f"-I{os.path.join(tmp, 'include')}", "-o", cubin, src], check=True)
            rows += derive(nvdisasm_gi(cubin), masked, arch)
    if not rows:
        fail(f"no {KERNEL} kernel of the menu gave a row")
    write_table(out, rows, arch, f"{m.group(1)} ({m.group(2)})" if m else "?")
    print(f"{len(rows)} variants -> {out}")


def excerpt(listing, out):
    """The K/V loop of the first flash2 forward kernel of a listing: its instruction lines, labels and the
    kernel's own line annotations (the helpers' inlined ones left out), enough for derive()."""
    text = Path(listing).read_text()
    arch = listing_arch(text)
    for name, _, body in functions(text):
        top = [lp for lp in sass.find_loops(sass.parse(body)) if lp.depth == 0]
        if not top:
            fail(f"{listing}: {name} has no loop")
        loop = max(top, key=lambda lp: lp.end - lp.start)
        keep = [f"\t.target\tsm_{arch}", f"\n\t.text.{name}:"]
        labels, note, last = [], None, None
        for ln in body.splitlines():
            mm = LINE.search(ln)
            mi = sass._INSTR.search(ln)
            if mm:
                note = f'\t//## File "cuda/kernels/flash2_fwd.cuh", line {mm.group(1)}'
            elif sass._LABEL.match(ln):
                labels.append(ln)
            elif mi:
                if loop.contains(int(mi.group(1), 16)):
                    keep += labels
                    if note != last:
                        keep.append(note)
                        last = note
                    keep.append(ln)
                labels = []
        Path(out).write_text("\n".join(keep) + "\n")
        return
    fail(f"{listing}: no flash2 forward kernel")


def check(table, listings):
    have = {tuple(r[k] for k in KEY): r for r in read_table(table)}
    masked = regions(SOURCE.read_text())
    bad = n = kernels = 0
    for path in listings:
        text = Path(path).read_text()
        arch = listing_arch(text)
        if arch is None:
            fail(f"{path}: no .target sm_<number> line")
        kernels += sum(1 for _ in functions(text))
        for r in derive(text, masked, arch):
            n += 1
            row = have.get(tuple(r[k] for k in KEY))
            if row != r:
                print(f"  {' '.join(str(r[k]) for k in KEY)}: {r['total']} instructions a step from the SASS, "
                      f"{row['total'] if row else 'no row'} in {table}")
                bad += 1
    print(f"{n} rows of {kernels} kernels against {table}: {bad} differ"
          + (" (regenerate it: scripts/sass-step-mix.py --table)" if bad else ""))
    return 1 if bad or n == 0 else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--table", metavar="OUT")
    ap.add_argument("--arch", type=int, default=90)
    ap.add_argument("--excerpt", nargs=2, metavar=("LISTING", "OUT"))
    ap.add_argument("--check", nargs="+", metavar=("TABLE", "LISTING"))
    a = ap.parse_args()
    if a.table:
        build_table(a.table, a.arch)
    elif a.excerpt:
        excerpt(*a.excerpt)
    elif a.check:
        if len(a.check) < 2:
            fail("--check takes a table and at least one listing")
        return check(a.check[0], a.check[1:])
    else:
        fail("one of --table, --excerpt or --check")
    return 0


if __name__ == "__main__":
    sys.exit(main())
