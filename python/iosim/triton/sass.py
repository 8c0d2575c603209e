"""The SASS of a cubin as instructions, its loops, and each loop's instruction mix by pipe (pipes.py).

Disassembly uses the tools shipped inside the triton wheel (nvdisasm -c, else cuobjdump -sass), so no
CUDA toolkit is needed. A loop is a backward branch: a BRA whose target lies at or before it; its body
is every instruction from the target to the branch. A branch to itself is not a loop (the trap that
pads the code after EXIT). Loops nest by containment; a loop's own counts leave out its inner loops.

Counts are per warp: every warp of the block issues each instruction of the code it runs (predicated
off or not), so a loop's counts are what one warp issues per trip.
"""

from __future__ import annotations

import os
import re
import struct
import subprocess
import tempfile
from dataclasses import dataclass, field
from typing import Optional

from .pipes import PIPES, classify, empty_counts

_INSTR = re.compile(r"/\*([0-9a-fA-F]{4,})\*/\s+(@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*(?:\.[A-Za-z0-9_]+)*)\s*([^;]*);")
_LABEL = re.compile(r"^\s*([.A-Za-z_$][\w.$]*):\s*$")
_TARGET_LABEL = re.compile(r"`?\(?\s*(\.L\w+)\s*\)?`?")
_TARGET_ADDR = re.compile(r"^\s*(0x[0-9a-fA-F]+)\s*")


@dataclass
class Instruction:
    addr: int
    opcode: str                   # with modifiers: 'MUFU.EX2'
    operands: str
    predicate: str = ""
    target: Optional[int] = None  # a branch's target address


@dataclass
class Loop:
    start: int                    # address of the first instruction of the body (the branch target)
    end: int                      # address of the backward branch
    depth: int = 0                # 0: outermost
    inner: list = field(default_factory=list)   # loops directly inside

    def contains(self, addr: int) -> bool:
        return self.start <= addr <= self.end


def tool(name: str) -> str:
    """The path of a CUDA binary tool shipped in the triton wheel (nvdisasm, cuobjdump, ptxas)."""
    import triton
    path = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", name)
    if not os.access(path, os.X_OK):
        raise FileNotFoundError(f"{name} not found in the triton wheel ({path})")
    return path


def disassemble(cubin: bytes) -> str:
    """The SASS text of a cubin: nvdisasm -c (labels for branch targets), else cuobjdump -sass."""
    with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as f:
        f.write(cubin)
        name = f.name
    try:
        try:
            # -ndf: no register dataflow analysis, which only annotates life ranges (-plr, -lrm) that -c
            # does not print: the same text for about three quarters of nvdisasm's CPU time.
            cmd = [tool("nvdisasm"), "-ndf", "-c", name]
        except FileNotFoundError:
            cmd = [tool("cuobjdump"), "-sass", name]
        return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    finally:
        os.remove(name)


# The targets whose raw disassembly (nvdisasm -b) was checked to give the same records as nvdisasm -c on
# the cubin, over the whole tiles menu (results/performance-history.md), and nvdisasm's name for each.
RAW_ARCH = {90: "SM90a"}
_ADDR = re.compile(r"/\*([0-9a-fA-F]{4,})\*/")
# A branch's target in a raw disassembly: its last operand, an address.
_RAW_BRANCH = re.compile(r"\s(BRA|JMP)\b[^;]*?[\s,](0x[0-9a-fA-F]+)\s*;")


def sole_code(cubin: bytes) -> Optional[bytes]:
    """The code of a cubin that holds one function in one .text section with no relocations into it,
    else None: such code disassembles on its own (nvdisasm -b) as in the cubin."""
    if cubin[:6] != b"\x7fELF\x02\x01":   # 64-bit little-endian ELF
        return None
    try:
        shoff, = struct.unpack_from("<Q", cubin, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3A)
        heads = [struct.unpack_from("<IIQQQQ", cubin, shoff + i * shentsize) for i in range(shnum)]
        names = heads[shstrndx][4]
        text = []
        for name_at, kind, _flags, _addr, offset, size in heads:
            name = cubin[names + name_at:cubin.index(b"\0", names + name_at)]
            if name.startswith(b".text."):
                text.append(cubin[offset:offset + size])
            elif name.startswith((b".rel.text.", b".rela.text.")) and size and kind != 8:   # 8: NOBITS
                return None
    except (struct.error, ValueError, IndexError):
        return None
    return text[0] if len(text) == 1 and text[0] and len(text[0]) % 16 == 0 else None


def disassemble_many(cubins: list[bytes], arch: int) -> list[str]:
    """The SASS text of each cubin (compiled for `arch`), whose parse() gives the instructions that
    disassemble(cubin)'s does: nvdisasm's start-up (about 0.25 s of CPU, whatever the code's size) is paid
    once. The code of every cubin sole_code() accepts is put end to end and disassembled as one raw
    binary (nvdisasm -b), then cut at each function's end and given back its own addresses, its branch
    targets as labels (_labelled); other cubins, or an arch not in RAW_ARCH,
    go through disassemble() one by one."""
    try:
        nvdisasm = tool("nvdisasm")
    except FileNotFoundError:
        nvdisasm = None
    codes = [sole_code(c) if arch in RAW_ARCH and nvdisasm else None for c in cubins]
    out = [None if code is not None else disassemble(c) for c, code in zip(cubins, codes)]
    raw = [(i, code) for i, code in enumerate(codes) if code is not None]
    if not raw:
        return out
    starts, at = [], 0
    for _, code in raw:
        starts.append(at)
        at += len(code)
    with tempfile.NamedTemporaryFile(suffix=".bin", delete=False) as f:
        f.write(b"".join(code for _, code in raw))
        name = f.name
    try:
        text = subprocess.run([nvdisasm, "-ndf", "-b", RAW_ARCH[arch], name], check=True,
                              capture_output=True, text=True).stdout
    except subprocess.CalledProcessError:
        text = ""    # each cubin alone, below
    finally:
        os.remove(name)
    kernels: list[list[tuple[int, str]]] = [[] for _ in raw]
    k = 0
    for line in text.splitlines():
        m = _ADDR.search(line)
        if not m:
            continue
        addr = int(m.group(1), 16)
        while k + 1 < len(raw) and addr >= starts[k + 1]:
            k += 1
        kernels[k].append((addr - starts[k], f"{line[:m.start()]}/*{addr - starts[k]:04x}*/{line[m.end():]}"))
    for (i, code), start, kernel in zip(raw, starts, kernels):
        # Every instruction of the code once (16 bytes each), every branch inside it: else, alone.
        whole = [a for a, _ in kernel] == list(range(0, len(code), 16))
        out[i] = (_labelled(kernel, start, len(code)) if whole else None) or disassemble(cubins[i])
    return out


def _labelled(kernel: list[tuple[int, str]], start: int, size: int) -> Optional[str]:
    """One function's lines of a raw disassembly (addresses already its own) as nvdisasm -c prints
    them: a branch's target address (`start` + the function's own) becomes a label before the target.
    None if a branch leaves the function."""
    targets, lines = set(), []
    for addr, line in kernel:
        b = _RAW_BRANCH.search(line)
        if b:
            target = int(b.group(2), 16) - start
            if not 0 <= target <= size:
                return None
            targets.add(target)
            line = f"{line[:b.start(2)]}`(.L_t_{target:x}){line[b.end(2):]}"
        lines.append((addr, line))
    text = []
    for addr, line in lines:
        if addr in targets:
            text.append(f".L_t_{addr:x}:")
        text.append(line)
    if size in targets:
        text.append(f".L_t_{size:x}:")
    return "\n".join(text) + "\n"


def parse(text: str) -> list[Instruction]:
    """The instructions of SASS text (one function), with branch targets resolved to addresses."""
    instructions, labels, pending = [], {}, []
    for line in text.splitlines():
        label = _LABEL.match(line)
        if label:
            pending.append(label.group(1))
            continue
        m = _INSTR.search(line)
        if not m:
            continue
        addr = int(m.group(1), 16)
        for name in pending:
            labels[name] = addr
        pending = []
        instructions.append(Instruction(addr=addr, opcode=m.group(3), operands=m.group(4).strip(),
                                        predicate=(m.group(2) or "").strip()))
    end = instructions[-1].addr + 16 if instructions else 0
    for name in pending:              # a label after the last instruction (the function's end)
        labels[name] = end
    for ins in instructions:
        if ins.opcode.split(".", 1)[0] not in ("BRA", "JMP"):
            continue
        lab = _TARGET_LABEL.search(ins.operands)
        if lab and lab.group(1) in labels:
            ins.target = labels[lab.group(1)]
        else:
            addr = _TARGET_ADDR.match(ins.operands)
            if addr:
                ins.target = int(addr.group(1), 16)
    return instructions


def find_loops(instructions: list[Instruction]) -> list[Loop]:
    """Every loop (backward branch), outermost first by address, with `inner` and `depth` filled in.
    Two backward branches to one target (a `continue`) make one loop ending at the last of them."""
    ends = {}
    for ins in instructions:
        if ins.target is not None and ins.target < ins.addr:
            ends[ins.target] = max(ends.get(ins.target, 0), ins.addr)
    loops = sorted((Loop(start=s, end=e) for s, e in ends.items()), key=lambda lp: (lp.start, -lp.end))
    for lp in loops:
        parents = [o for o in loops if o is not lp and o.start <= lp.start and lp.end <= o.end]
        lp.depth = len(parents)
        if parents:
            min(parents, key=lambda o: o.end - o.start).inner.append(lp)
    return loops


def tally(instructions: list[Instruction]) -> dict:
    """Instructions by pipe, by opcode base (most first; ties in order of first appearance) and the
    tensor-core ones by whole opcode."""
    by_pipe, by_opcode, tensor = empty_counts(), {}, {}
    for ins in instructions:
        b = ins.opcode.split(".", 1)[0]
        pipe = classify(ins.opcode)
        by_pipe[pipe] += 1
        by_opcode[b] = by_opcode.get(b, 0) + 1
        if pipe == "tensor":  # with their shapes (HGMMA.64x64x16.F32): what each costs the tensor pipe
            tensor[ins.opcode] = tensor.get(ins.opcode, 0) + 1
    return {"by_pipe": by_pipe, "by_opcode": dict(sorted(by_opcode.items(), key=lambda kv: -kv[1])),
            "tensor_opcodes": tensor}


def counts(instructions: list[Instruction], keep) -> dict:
    """Instructions by pipe among those `keep(instruction)` accepts, and by opcode base (tally)."""
    return tally([i for i in instructions if keep(i)])


def loop_counts(instructions: list[Instruction], loop: Loop) -> dict:
    """One trip of `loop`: its body less its inner loops' bodies."""
    return tally(_own_body(instructions, loop))


def is_padding(ins: Instruction) -> bool:
    """The code after the kernel's end: NOPs and the branch-to-self trap."""
    return ins.opcode == "NOP" or (ins.target is not None and ins.target == ins.addr)


def outside_counts(instructions: list[Instruction], loops: list[Loop]) -> dict:
    """Instructions in no loop: before the first loop (prologue), between loops, after the last
    (epilogue); padding after the kernel's end is left out."""
    top = [lp for lp in loops if lp.depth == 0]
    first = min((lp.start for lp in top), default=None)
    last = max((lp.end for lp in top), default=None)

    spans = [(lp.start, lp.end) for lp in top]
    regions: dict = {"prologue": [], "between": [], "epilogue": []}
    for i in instructions:
        a = i.addr
        if is_padding(i) or any(s <= a <= e for s, e in spans):
            continue
        regions["prologue" if first is None or a < first else "epilogue" if a > last else "between"].append(i)
    return {name: tally(ones) for name, ones in regions.items()}


def _own_body(instructions: list[Instruction], loop: Loop) -> list[Instruction]:
    s, e = loop.start, loop.end
    inner = [(c.start, c.end) for c in loop.inner]
    return [i for i in instructions if s <= i.addr <= e and not any(a <= i.addr <= b for a, b in inner)]


_REG = re.compile(r"\bU?R\d+\b")
_IMM = re.compile(r"-?0x[0-9a-fA-F]+")
_PRED = re.compile(r"!?(U?P[0-9T])")


def counter_step(instructions: list[Instruction], loop: Loop) -> Optional[int]:
    """The step of the loop's counter per trip, or None when it cannot be traced: the backward
    branch's predicate is set by an (U)ISETP comparing some registers; the counter is the one of them
    the body adds an immediate to itself (IADD3 R4, R4, 0x40, RZ; UIADD3; VIADD)."""
    body = _own_body(instructions, loop)
    branch = next((i for i in reversed(body) if i.addr == loop.end), None)
    if branch is None or not branch.predicate:
        return None
    pred = branch.predicate.lstrip("@!")
    before = [i for i in body if i.addr < branch.addr]
    writer = next((i for i in reversed(before) if i.operands.split(",")[0].strip() == pred), None)
    if writer is not None and writer.opcode.startswith("PLOP3"):   # P0 copied from a uniform predicate
        ups = [t for t in _PRED.findall(writer.operands) if t.startswith("UP") and t != "UPT"]
        pred = ups[0] if ups else pred
    compared = set()
    for i in before:   # every compare writing the predicate: a 64-bit compare is two (ISETP, ISETP.EX)
        if i.opcode.split(".", 1)[0] in ("ISETP", "UISETP") and i.operands.split(",")[0].strip() == pred:
            compared |= set(_REG.findall(i.operands))
    for ins in body:
        if ins.opcode.split(".", 1)[0] not in ("IADD3", "UIADD3", "VIADD", "IADD"):
            continue
        ops = [o.strip() for o in ins.operands.split(",") if not _PRED.fullmatch(o.strip())]  # drop carries
        if len(ops) >= 3 and ops[0] == ops[1] and ops[0] in compared:
            imms = [o for o in ops[2:] if _IMM.fullmatch(o)]
            if imms:
                return int(imms[0], 16) if not imms[0].startswith("-") else -int(imms[0][1:], 16)
    return None


__all__ = ["PIPES", "Instruction", "Loop", "disassemble", "disassemble_many", "sole_code", "parse", "find_loops",
           "loop_counts", "tally", "outside_counts", "counter_step", "is_padding", "tool"]
