#!/usr/bin/env python3
"""docs/adding-a-schedule.md against the code it quotes, and the example's kernel menu rows generated.

Every fenced block of the doc follows a line naming where it comes from: <!-- from: PATH --> (a file of
the repository, which must hold the block verbatim) or <!-- generated: PATH --> (a file that
cuda/kernels/generate_kernels.py writes from cuda/kernels/menu.csv plus the example's rows,
tests/example_schedule/menu-rows.csv; PATH relative to its output folder). The generator's output for
those rows is checked too: one instantiation file per (kernel, d, type, warps, stages), one registry row
and one model default per row group, and the product's menu has no row of the example.
"""
import os
import re
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOC = os.path.join(REPO, "docs/adding-a-schedule.md")
GEN = os.path.join(REPO, "cuda/kernels/generate_kernels.py")
MENU = os.path.join(REPO, "cuda/kernels/menu.csv")
ROWS = os.path.join(REPO, "tests/example_schedule/menu-rows.csv")
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def rows_of(path):
    return [line for line in read(path).splitlines() if line.strip() and not line.startswith("#")]


def generate(tmp):
    """The menu with the example's rows: the CUDA side (every row) and the model's header."""
    menu = os.path.join(tmp, "menu.csv")
    with open(menu, "w", encoding="utf-8") as f:
        f.write(read(MENU) + read(ROWS))
    out = os.path.join(tmp, "out")
    for args in (["--cuda", out, "--full"], ["--model", os.path.join(out, "kernel_menu.h")]):
        p = subprocess.run([sys.executable, GEN, menu, *args], capture_output=True, text=True)
        check(p.returncode == 0, f"generate_kernels {' '.join(args)}: {p.stderr.strip()}")
    lean = subprocess.run([sys.executable, GEN, menu, "--list", out], capture_output=True, text=True).stdout.split()
    return out, lean


def blocks(text):
    """(line, marker kind, marker path, block text) of each fenced block; kind None where unmarked."""
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        if lines[i].startswith("```"):
            start = i
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            prev = next((lines[k] for k in range(start - 1, -1, -1) if lines[k].strip()), "")
            m = re.fullmatch(r"<!-- (from|generated): (\S+) -->", prev.strip())
            out.append((start + 1, m.group(1) if m else None, m.group(2) if m else None,
                        "\n".join(lines[start + 1:j]) + "\n"))
            i = j + 1
        else:
            i += 1
    return out


with tempfile.TemporaryDirectory() as tmp:
    out, lean = generate(tmp)
    doc = blocks(read(DOC))
    check(len(doc) > 0, "the doc has no code blocks")
    for line, kind, path, block in doc:
        where = f"docs/adding-a-schedule.md:{line}"
        if kind is None:
            failures.append(f"{where}: a code block with no <!-- from: PATH --> or <!-- generated: PATH --> line")
            continue
        target = os.path.join(REPO if kind == "from" else out, path)
        if not os.path.isfile(target):
            failures.append(f"{where}: {kind} {path}: no such file")
            continue
        check(block in read(target), f"{where}: the block is not in {path} as quoted")

    example = rows_of(ROWS)
    check(not any(r.startswith("rowwise,") for r in rows_of(MENU)), "the product's menu has a row of the example")
    inst = {f"inst/sm80/rowwise_fwd_d64_{t}_w{w}_s1.cu" for t, w in (("fp16", 4), ("bf16", 4), ("fp16", 2))}
    for name in sorted(inst):
        path = os.path.join(out, name)
        check(os.path.isfile(path), f"no {name}")
        if os.path.isfile(path):
            check('#include "cuda/kernels/rowwise_fwd.cuh"' in read(path), f"{name} does not include rowwise_fwd.cuh")
    calls = sum(read(os.path.join(out, n)).count("menu_entry<RowwiseFwdKernel") for n in inst
                if os.path.isfile(os.path.join(out, n)))
    check(calls == len(example), f"{calls} menu_entry calls of RowwiseFwdKernel for {len(example)} rows")
    lean_inst = {os.path.relpath(p, out) for p in lean} & inst
    check(lean_inst == inst - {"inst/sm80/rowwise_fwd_d64_fp16_w2_s1.cu"},
          f"the lean build's files of the example: {sorted(lean_inst)}")
    registry_path = os.path.join(out, "registry_menu.cpp")
    registry = read(registry_path) if os.path.isfile(registry_path) else ""
    menu_rows = len(rows_of(MENU)) - 1  # less its header
    check(registry.count("(),\n") == menu_rows + len(example), "kernel_registry() does not list every row")
    header_path = os.path.join(out, "kernel_menu.h")
    header = read(header_path) if os.path.isfile(header_path) else ""
    check(header.count('{"rowwise", true, 64, 64, 64, 4, 1, "sm80"}') == 1,
          "not one model default for rowwise fwd d = 64")
    check(header.count('{"rowwise", true, "rowwise_fwd",') == len(example),
          "kernel_menu::kKernels does not list every row")

for f in failures:
    print(f, file=sys.stderr)
sys.exit(1 if failures else 0)
