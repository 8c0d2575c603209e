#!/usr/bin/env python3
"""One K/V step of iosim's flash2 forward kernels (unmasked and masked), one Q step of its backward kernel and
one K/V step of a consumer warp of flash3's forward (unmasked and masked), by pipe, from their SASS and line
information.

  sass-step-mix.py --table OUT.csv [--arch 90] [--only KERNEL]
                                                 compile every flash2 forward and backward and flash3
                                                 forward row of cuda/kernels/menu.csv
                                                 (nvcc -O3 -DNDEBUG -arch=sm_ARCH -cubin -lineinfo, one
                                                 instantiation file of generate_kernels.py --full at a time),
                                                 disassemble (the triton wheel's nvdisasm -gi -c) and write
                                                 the table the time model reads (cuda/kernels/step-mix-sm90.csv);
                                                 --only: compile that kernel's rows alone, keeping OUT's others
  sass-step-mix.py --excerpt LISTING OUT         the first kernel of an nvdisasm -gi -c listing cut to the
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

flash2's backward (flash2_bwd.cuh): the step is one trip of the Q loop (the kernel's outermost loop) by
warp 0. It has two loops of its own whose trips the compiler does not know: the statistics' (one row a
thread: ⌈B_r / threads⌉ trips for warp 0) and the dQacc atomics' (B_r·d / threads trips), each compiled as
a remainder and a loop unrolled by four. Each trip of the one runs one store of row_mul (the line that sets
it), of the other one RED, so the step is the shortest path from the loop's head to its backward branch that
runs those exactly so many times (a path that skips an atomic's guard and makes it up in one more trip is
longer). Warp 0 is the busiest warp (the statistics' rows go to the first warps) and the barriers make the
others wait for it. The mask is computed without a branch (bwd_probs' predicates): a masked step runs the
same instructions, so the backward kernel has `unmasked` rows only.

flash3's forward (cuda/kernels/flash3/flash3_fwd.cuh, compiled for sm_<arch>a as flash3.cmake compiles it):
the step is one trip of the consumers' K/V loop (FA3's overlapped order: S_j = Q K_jᵀ and P_{j−1} V_{j−1}
issued together, the softmax of S_j beside the second), by one consumer warp: each warp of a warpgroup
issues its warpgroup's HGMMAs. The producer warp's loop is not the step (the time model prices the
consumer warps, HopperTraits::producer_warps). The loop is the smallest that holds an HGMMA, and its
backward branch must be the consumers' `for` line (the stage waits' retry loops lie after the kernel's
exit and branch back into it, making loops that span the consumers' code). Line information through
the annotations' chains (the lambdas are inlined at their calls): an instruction is the masking block's
where any of its annotations names a line of the mask lambda's `if (ragged || diagonal || …) {` block.
A stage wait's first try succeeds (the producer runs ahead of a consumer-bound loop): the branch that
tests its token is taken, and the second try it skips is not the step's. Unmasked: a path through no
masking-block instruction; masked: through it (one copy: the window's test is predicated, so `masked`
alone). The masking block has no branch of its own, so each is one path. Producer: one trip of the
producer warp's own K/V loop (the smallest loop ending on its `for` line: load_k(j), load_v(j − 1)) over
contiguous K/V, the path through no line of the paged code (boxes_of, the load lambdas past their
`if (table == nullptr)` block); its stage waits' retries lie after the kernel's exit, so the path is
their first tries'. The time model does not read it (results/flash3-producer-2026-12-07.md).

The unmasked forward rows of flash2 were checked against ncu's executed instructions per warp and step on
42 kernels (results/sass-lineinfo-2026-12-06); the masked rows and flash3's are not so checked.
A malformed table or listing: one line naming it, exit 2.
"""
import argparse
import collections
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
BWD_SOURCE = ROOT / "cuda" / "kernels" / "flash2_bwd.cuh"
BWD_KERNEL = "flash2_bwd"
KEY = ["kernel", "d", "dtype", "br", "bc", "warps", "stages", "arch", "step"]
STEPS = ("unmasked", "masked", "window", "producer")
COLUMNS = KEY + list(pipes.PIPES) + ["total"]
LINE = re.compile(r'//## File "[^"]*/flash2_fwd\.cuh", line (\d+)\s*$')
TRAITS = re.compile(r"flash2_fwd_kernelI(6__half|13__nv_bfloat16)NS\d+_15Flash2FwdTraits"
                    r"ILi(\d+)ELi(\d+)ELi(\d+)ELi(\d+)ELi(\d+)E")
DTYPE = {"6__half": "fp16", "13__nv_bfloat16": "bf16"}
BWD_LINE = re.compile(r'//## File "[^"]*/flash2_bwd\.cuh", line (\d+)\s*$')
BWD_TRAITS = re.compile(r"flash2_bwd_kernelI(6__half|13__nv_bfloat16)NS\d+_14FlashBwdTraits"
                        r"ILi(\d+)ELi(\d+)ELi(\d+)ELb0ELi(\d+)E")
ATOMICS = ("RED", "REDG", "ATOM", "ATOMG")


def fail(msg):
    print(f"sass-step-mix: {msg}", file=sys.stderr)
    sys.exit(2)


def block_lines(text, start, source=SOURCE):
    """The 1-based numbers of the lines inside the braced block that line index `start` opens."""
    depth = 1
    for i in range(start + 1, len(text)):
        depth += text[i].count("{") - text[i].count("}")
        if depth == 0:
            return set(range(start + 2, i + 1))
    fail(f"{source}: the block at line {start + 1} does not close")


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


def sections(text, traits):
    """(name, traits match, body text) of each function of a -gi -c listing whose name `traits` matches."""
    parts = re.split(r"\n\s*\.text\.(\S+):", text)
    for name, body in zip(parts[1::2], parts[2::2]):
        m = traits.search(name)
        if m:
            yield name, m, body


def functions(text):
    """(name, key dict, body text) of each flash2 forward kernel of a -gi -c listing."""
    for name, m, body in sections(text, TRAITS):
        d, br, bc, warps, stages = (int(x) for x in m.groups()[1:])
        yield name, {"kernel": KERNEL, "d": d, "dtype": DTYPE[m.group(1)], "br": br, "bc": bc,
                     "warps": warps, "stages": stages}, body


def kernel_lines(body, pattern=LINE):
    """{address: kernel line} of a function's body."""
    lines, cur = {}, None
    for ln in body.splitlines():
        mm = pattern.search(ln)
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


def bwd_regions(source):
    """The backward kernel's two loops inside its Q loop: (lines of the statistics' loop, the line that
    stores row_mul), (lines of the atomics' loop)."""
    text = source.splitlines()
    try:
        stats = next(i for i, line in enumerate(text) if "for (int r = tid; r < kBr; r += Tr::kThreads) {" in line)
        mul = next(i for i in range(stats, len(text)) if "sm.row_mul[r] = 1.f;" in text[i])
        atomics = next(i for i, line in enumerate(text) if "for (int idx = tid; idx < kBr * kD; idx += Tr::kThreads) {"
                       in line)
    except StopIteration:
        fail(f"{BWD_SOURCE}: no statistics' loop, row_mul store or atomics' loop found in the Q loop")
    # The for line itself holds the loop's test and increment.
    return ((block_lines(text, stats, BWD_SOURCE) | {stats + 1}, mul + 1),
            block_lines(text, atomics, BWD_SOURCE) | {atomics + 1})


def bwd_functions(text):
    """(name, key dict, body text) of each flash2 backward kernel of a -gi -c listing."""
    for name, m, body in sections(text, BWD_TRAITS):
        d, br, bc, warps = (int(x) for x in m.groups()[1:])
        yield name, {"kernel": BWD_KERNEL, "d": d, "dtype": DTYPE[m.group(1)], "br": br, "bc": bc,
                     "warps": warps, "stages": 1}, body


def counted_path(instructions, loop, marks, trips):
    """The shortest path from the loop's head to its backward branch (inner loops' backward branches
    taken as often as the path needs) that runs the instructions each of `marks` accepts exactly the
    matching `trips` times, or None where none does."""
    body = [i for i in instructions if loop.contains(i.addr)]
    index = {ins.addr: k for k, ins in enumerate(body)}
    n = len(body)
    seen = [tuple(int(bool(m(ins))) for m in marks) for ins in body]
    start = (0, seen[0])
    end = (n - 1, tuple(trips))
    came = {start: None}
    queue = collections.deque([start])
    while queue and end not in came:
        k, counts = queue.popleft()
        ins = body[k]
        if k == n - 1:
            continue
        succ = []
        if ins.target is not None and ins.target in index:
            succ.append(index[ins.target])
        if not unconditional(ins):
            succ.append(k + 1)
        for s in succ:
            now = tuple(a + b for a, b in zip(counts, seen[s]))
            if s < n and all(a <= t for a, t in zip(now, trips)) and (s, now) not in came:
                came[(s, now)] = (k, counts)
                queue.append((s, now))
    if end not in came:
        return None
    path, state = [], end
    while state is not None:
        path.append(body[state[0]])
        state = came[state]
    return path[::-1]


def derive_bwd(listing, loops, arch):
    """The table rows of every flash2 backward kernel in a -gi -c listing: warp 0's Q step (`unmasked`;
    a masked step runs the same instructions). A kernel with no such path gets none (its reason on stderr)."""
    (stats, mul), atomics = loops
    rows = []
    for name, key, body in bwd_functions(listing):
        instructions = sass.parse(body)
        lines = kernel_lines(body, BWD_LINE)
        top = [lp for lp in sass.find_loops(instructions) if lp.depth == 0]
        if not top:
            print(f"sass-step-mix: {name}: no loop", file=sys.stderr)
            continue
        loop = max(top, key=lambda lp: lp.end - lp.start)
        threads = 32 * key["warps"]
        marks = (lambda ins: lines.get(ins.addr) == mul and pipes.base(ins.opcode) == "STS",
                 lambda ins: lines.get(ins.addr) in atomics and pipes.base(ins.opcode) in ATOMICS)
        trips = (-(-key["br"] // threads), key["br"] * key["d"] // threads)
        path = counted_path(instructions, loop, marks, trips)
        if path is None:
            print(f"sass-step-mix: {name}: no Q step runs {trips[0]} statistics' and {trips[1]} atomics' trips",
                  file=sys.stderr)
            continue
        rows.append({**key, "arch": f"sm_{arch}", "step": "unmasked", **mix(path)})
    return rows


F3_SOURCE = ROOT / "cuda" / "kernels" / "flash3" / "flash3_fwd.cuh"
F3_KERNEL = "flash3_fwd"
# Any annotation naming flash3's forward source, inlined or not (the lambdas' lines are inlined at their calls).
F3_LINE = re.compile(r'//## File "[^"]*/flash3/flash3_fwd\.cuh", line (\d+)')
F3_OWN = re.compile(r'//## File "[^"]*/flash3/flash3_fwd\.cuh", line (\d+)\s*$')
# flash3::detail::fwd_kernel<FwdTraits<Element, D, B_r, B_c, stages, OVERLAP = true>>: the dispatched kernel.
F3_TRAITS = re.compile(r"6flash36detail10fwd_kernelINS\d+_9FwdTraitsIN7cutlass(6half_t|10bfloat16_t)E"
                       r"Li(\d+)ELi(\d+)ELi(\d+)ELi(\d+)ELb1E")
F3_DTYPE = {"6half_t": "fp16", "10bfloat16_t": "bf16"}
KERNELS = (KERNEL, BWD_KERNEL, F3_KERNEL)


def f3_regions(source):
    """flash3's forward: the line of the consumers' K/V loop (the overlapped order's `for`), the lines of the
    masking block (the mask lambda's `if (ragged || diagonal || …) {`) and the line of a stage wait's second
    try (the consumer_wait lambda's `pipe.consumer_wait(st, token);`)."""
    text = source.splitlines()
    try:
        overlap = next(i for i, line in enumerate(text) if "if constexpr (Tr::kOverlap) {" in line)
        loop = next(i for i in range(overlap, len(text)) if "for (int j = 1; j < kv_tiles; ++j) {" in text[i])
        mask = next(i for i, line in enumerate(text) if re.match(r"\s*if \(ragged \|\| diagonal.*\) \{$", line))
        retry = next(i for i, line in enumerate(text) if "pipe.consumer_wait(st, token);" in line)
        first = next(i for i, line in enumerate(text) if "load_k(0, write_k);" in line)
        producer = next(i for i in range(first, len(text)) if "for (int j = 1; j < kv_tiles; ++j) {" in text[i])
        boxes = next(i for i, line in enumerate(text) if "auto boxes_of = [&](int tile) {" in line)
        load = re.compile(r"\s*auto load_[kv] = \[&\]\(int j, const PipelineState& st\) \{$")
        loads = [i for i, line in enumerate(text) if load.match(line)]
    except StopIteration:
        fail(f"{F3_SOURCE}: no consumers' K/V loop, masking block, stage wait or producer loop found")
    if len(loads) != 2 or any("if (table == nullptr) {" not in text[i + 1] for i in loads):
        fail(f"{F3_SOURCE}: no load_k and load_v lambdas opening with `if (table == nullptr) {{`")
    # Paged K/V: the boxes' lambda and what the load lambdas run after their contiguous block.
    paged = block_lines(text, boxes, F3_SOURCE)
    for i in loads:
        paged |= block_lines(text, i, F3_SOURCE) - block_lines(text, i + 1, F3_SOURCE) - {i + 2}
    return loop + 1, block_lines(text, mask, F3_SOURCE), retry + 1, producer + 1, paged


def f3_functions(text):
    """(name, key dict, body text) of each flash3 forward kernel (the overlapped one) of a -gi -c listing."""
    for name, m, body in sections(text, F3_TRAITS):
        d, br, bc, stages = (int(x) for x in m.groups()[1:])
        # B_r / 64 consumer warpgroups and the producer's: 4 warps each.
        yield name, {"kernel": F3_KERNEL, "d": d, "dtype": F3_DTYPE[m.group(1)], "br": br, "bc": bc,
                     "warps": 4 * (br // 64 + 1), "stages": stages}, body


def annotation_chains(body):
    """{address: (the kernel's own line, every line of flash3_fwd.cuh its annotations name)} of a function's
    body: an instruction's annotations are the //## lines printed last before it (none: the previous ones)."""
    out, own, lines, fresh = {}, None, set(), True
    for ln in body.splitlines():
        if ln.lstrip().startswith("//##"):
            if fresh:
                own, lines, fresh = None, set(), False
            m = F3_LINE.search(ln)
            if m:
                lines.add(int(m.group(1)))
            mo = F3_OWN.search(ln)
            if mo:
                own = int(mo.group(1))
            continue
        mi = sass._INSTR.search(ln)
        if mi:
            out[int(mi.group(1), 16)] = (own, lines)
            fresh = True
    return out


def derive_f3(listing, regions, arch):
    """The table rows of every flash3 forward kernel in a -gi -c listing: one consumer warp's K/V step of
    the overlapped mainloop, unmasked (where one path) and masked (one length: `masked`; two: `masked`
    the fewer, `window` the more)."""
    loop_line, mask, retry, producer_line, paged = regions
    rows = []
    for name, key, body in f3_functions(listing):
        instructions = sass.parse(body)
        chains = annotation_chains(body)
        hgmma = [i.addr for i in instructions if pipes.base(i.opcode) == "HGMMA"]
        # The stage waits' retry loops lie after the kernel's exit and branch back into it: the loops they
        # make span the consumers' code; the K/V loop is the smallest that holds an HGMMA.
        found = [lp for lp in sass.find_loops(instructions) if any(lp.contains(a) for a in hgmma)]
        if not found:
            print(f"sass-step-mix: {name}: no loop holds an HGMMA", file=sys.stderr)
            continue
        loop = min(found, key=lambda lp: lp.end - lp.start)
        if chains.get(loop.end, (None,))[0] != loop_line:
            print(f"sass-step-mix: {name}: the smallest loop with an HGMMA ends at line "
                  f"{chains.get(loop.end, (None,))[0]}, not the consumers' K/V loop's {loop_line}", file=sys.stderr)
            continue
        in_mask = lambda ins: bool(chains.get(ins.addr, (None, set()))[1] & mask)  # noqa: E731
        # A stage wait's first try succeeds: the branch that tests its token is taken, and the second try it
        # skips (and the retry loop after the kernel's exit) is not the step's.
        skipped = set()
        for ins in instructions:
            if (loop.contains(ins.addr) and ins.target is not None and ins.addr < ins.target <= loop.end
                    and retry in chains.get(ins.addr, (None, set()))[1]):
                skipped.update(range(ins.addr + 1, ins.target))
        steady = lambda ins: ins.addr not in skipped  # noqa: E731
        row = {**key, "arch": f"sm_{arch}"}
        plain = step_paths(instructions, loop, lambda ins: steady(ins) and not in_mask(ins))
        if len(plain) != 1:
            print(f"sass-step-mix: {name}: the unmasked step is not one path ({sorted(plain)})", file=sys.stderr)
            continue
        rows.append({**row, "step": "unmasked", **mix(next(iter(plain.values())))})
        masked = step_paths(instructions, loop, steady, in_mask)
        if len(masked) not in (1, 2):
            print(f"sass-step-mix: {name}: the masked step is {len(masked)} paths ({sorted(masked)})", file=sys.stderr)
            continue
        for step, length in zip(("masked", "window"), sorted(masked)):
            rows.append({**row, "step": step, **mix(masked[length])})
        producer = f3_producer_step(instructions, chains, producer_line, paged)
        if producer is None:
            print(f"sass-step-mix: {name}: the producer's loop is not one contiguous-K/V path", file=sys.stderr)
            continue
        rows.append({**row, "step": "producer", **mix(producer)})
    return rows


def f3_producer_step(instructions, chains, loop_line, paged):
    """The producer warp's step: one trip of its K/V loop (load_k(j), load_v(j − 1)) over contiguous K/V,
    the path through no instruction of the paged code; its stage waits' first tries succeed (their retry
    loops lie after the kernel's exit). None where the loop or that one path is not found."""
    found = [lp for lp in sass.find_loops(instructions) if chains.get(lp.end, (None,))[0] == loop_line]
    if not found:
        return None
    loop = min(found, key=lambda lp: lp.end - lp.start)
    plain = step_paths(instructions, loop, lambda ins: not chains.get(ins.addr, (None, set()))[1] & paged)
    return next(iter(plain.values())) if len(plain) == 1 else None


def derive_all(listing, arch):
    """derive() and derive_bwd() of one listing."""
    return (derive(listing, regions(SOURCE.read_text()), arch) +
            derive_bwd(listing, bwd_regions(BWD_SOURCE.read_text()), arch) +
            derive_f3(listing, f3_regions(F3_SOURCE.read_text()), arch))


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
        f.write(f"# Warp instructions of one steady-state K/V step of iosim's flash2 forward kernels, of one Q\n"
                f"# step of warp 0 of its backward kernel, and of one K/V step of a consumer warp of flash3's\n"
                f"# forward, by pipe (python/iosim/triton/pipes.py), as compiled for sm_{arch} (flash3: sm_{arch}a)\n"
                f"# by nvcc {nvcc}: written by scripts/sass-step-mix.py --table from each menu variant's SASS\n"
                f"# and line information. step: unmasked (no masking block), masked (through it), window\n"
                f"# (through its copy for a sliding window, where the compiler made one); flash2's backward masks\n"
                f"# without a branch, unmasked alone; producer (flash3): one trip of the producer warp's K/V loop\n"
                f"# over contiguous K/V. The time model prices a step of these variants from here\n"
                f"# (\"sass\"), of any other from its fitted overhead (\"fit\").\n")
        f.write(",".join(COLUMNS) + "\n")
        for r in sorted(rows, key=lambda r: tuple(r[k] for k in KEY)):
            f.write(",".join(str(r[c]) for c in COLUMNS) + "\n")


def nvdisasm_gi(cubin):
    return subprocess.run([sass.tool("nvdisasm"), "-ndf", "-gi", "-c", cubin], check=True, capture_output=True,
                          text=True).stdout


def cutlass_include():
    """CUTLASS's headers as flash3.cmake finds them: IOSIM_CUTLASS_INCLUDE, .deps/cutlass/include, or the
    nvidia-cutlass wheel's (cutlass_library/source/include)."""
    found = os.environ.get("IOSIM_CUTLASS_INCLUDE") or str(ROOT / ".deps" / "cutlass" / "include")
    if not os.path.exists(os.path.join(found, "cute", "tensor.hpp")):
        try:
            import cutlass_library
            found = os.path.join(os.path.dirname(cutlass_library.__file__), "source", "include")
        except ImportError:
            pass
    if not os.path.exists(os.path.join(found, "cute", "tensor.hpp")):
        fail("no CUTLASS headers for flash3 (set IOSIM_CUTLASS_INCLUDE, or scripts/setup installs nvidia-cutlass)")
    return found


def build_table(out, arch, only=None):
    nvcc = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc")
    if not os.access(nvcc, os.X_OK):
        fail(f"no nvcc at {nvcc} (set CUDA_HOME)")
    if only not in (None, *KERNELS):
        fail(f"--only takes one of {', '.join(KERNELS)}, not '{only}'")
    version = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"release ([\d.]+), (V[\d.]+)", version)
    kernels = [only] if only else list(KERNELS)
    # --only keeps the other kernels' rows of the table it rewrites.
    rows = [r for r in read_table(out) if r["kernel"] not in kernels] if only and os.path.exists(out) else []
    gen = ROOT / "cuda" / "kernels" / "generate_kernels.py"
    menu = ROOT / "cuda" / "kernels" / "menu.csv"
    with tempfile.TemporaryDirectory() as tmp:
        inc = os.path.join(tmp, "include", "iosim_generated")
        os.makedirs(inc)
        subprocess.run([sys.executable, gen, menu, "--model", os.path.join(inc, "kernel_menu.h")], check=True)
        subprocess.run([sys.executable, gen, menu, "--cuda", tmp, "--full"], check=True)
        # The instantiation files lie in a folder per kernel architecture (inst/sm80/ for flash2's, inst/sm90a/
        # for flash3's, compiled as flash3.cmake does: sm_<arch>a, CuTe's constexpr flags, CUTLASS's headers).
        for kernel in kernels:
            found = 0
            for src in sorted(glob.glob(os.path.join(tmp, "inst", "**", f"{kernel}_d*.cu"), recursive=True)):
                cubin = src[:-3] + ".cubin"
                sm90a = os.path.basename(os.path.dirname(src)) == "sm90a"
                flags = ([f"-arch=sm_{arch}a", "--expt-relaxed-constexpr", "-isystem", cutlass_include()] if sm90a
                         else [f"-arch=sm_{arch}"])
                subprocess.run(["nice", nvcc, "-O3", "-DNDEBUG", "-std=c++20", *flags, "-cubin",
                                "-lineinfo", f"-I{ROOT}", f"-I{tmp}", f"-I{os.path.join(tmp, 'include')}", "-o", cubin,
                                src], check=True)
                derived = derive_all(nvdisasm_gi(cubin), arch)
                found += len(derived)
                rows += derived
            if not found:
                fail(f"no {kernel} kernel of the menu gave a row")
    write_table(out, rows, arch, f"{m.group(1)} ({m.group(2)})" if m else "?")
    print(f"{len(rows)} rows -> {out}")


def excerpt(listing, out):
    """The outermost loop of the first flash2 forward or backward kernel of a listing: its instruction lines,
    labels and the kernel's own line annotations (the helpers' inlined ones left out), enough for derive()
    and derive_bwd()."""
    text = Path(listing).read_text()
    arch = listing_arch(text)
    for found, pattern, file in ((functions(text), LINE, "flash2_fwd.cuh"),
                                 (bwd_functions(text), BWD_LINE, "flash2_bwd.cuh")):
        for name, _, body in found:
            top = [lp for lp in sass.find_loops(sass.parse(body)) if lp.depth == 0]
            if not top:
                fail(f"{listing}: {name} has no loop")
            loop = max(top, key=lambda lp: lp.end - lp.start)
            keep = [f"\t.target\tsm_{arch}", f"\n\t.text.{name}:"]
            labels, note, last = [], None, None
            for ln in body.splitlines():
                mm = pattern.search(ln)
                mi = sass._INSTR.search(ln)
                if mm:
                    note = f'\t//## File "cuda/kernels/{file}", line {mm.group(1)}'
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
    fail(f"{listing}: no flash2 forward or backward kernel")


def check(table, listings):
    have = {tuple(r[k] for k in KEY): r for r in read_table(table)}
    bad = n = kernels = 0
    for path in listings:
        text = Path(path).read_text()
        arch = listing_arch(text)
        if arch is None:
            fail(f"{path}: no .target sm_<number> line")
        kernels += sum(1 for f in (functions, bwd_functions, f3_functions) for _ in f(text))
        for r in derive_all(text, arch):
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
    ap.add_argument("--only", metavar="KERNEL")
    ap.add_argument("--excerpt", nargs=2, metavar=("LISTING", "OUT"))
    ap.add_argument("--check", nargs="+", metavar=("TABLE", "LISTING"))
    a = ap.parse_args()
    if a.table:
        build_table(a.table, a.arch, a.only)
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
