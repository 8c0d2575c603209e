#!/usr/bin/env python3
"""The kernel menu's generator (cuda/kernels/generate_kernels.py) on the real table and on broken ones.

The real table: every (schedule, pass, d, dtype) group compiled in the lean build starts with a lean row,
the lean build's files are a subset of the full build's, every row of the full build is one menu_entry
call, each architecture's rows go to its own folder (--arch picks them), and the model's header lists one
default per (schedule, pass, d) and every row once (kKernels), with the head dimensions of the rows.
flash3's rows (sm90a) generate the kernels its hand-written registry listed before they became menu
rows: lean, the overlapped forward and the backward of fp16 d = 128; full, fp16/bf16 × d 64/128 ×
overlapped/plain forward and fp16/bf16 × d 64/128 backward, each at its one tile. A broken table: exit 2
and one line on stderr naming the file's line.
"""
import csv
import os
import re
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEN = os.path.join(REPO, "cuda/kernels/generate_kernels.py")
MENU = os.path.join(REPO, "cuda/kernels/menu.csv")
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def run(*args):
    return subprocess.run([sys.executable, GEN, *args], capture_output=True, text=True)


rows = list(csv.DictReader(line for line in open(MENU, encoding="utf-8") if not line.startswith("#")))
with tempfile.TemporaryDirectory() as tmp:
    lean = run(MENU, "--list", tmp).stdout.split()
    full = run(MENU, "--list", tmp, "--full").stdout.split()
    check(set(lean) <= set(full), "the lean build's files are not a subset of the full build's")
    check(run(MENU, "--cuda", tmp, "--full").returncode == 0, "--cuda --full failed")
    calls = 0
    for f in full:
        calls += len(re.findall(r"menu_entry<", open(f, encoding="utf-8").read()))
    check(calls == len(rows), f"{calls} menu_entry calls for {len(rows)} rows")
    registry = open(os.path.join(tmp, "registry_menu.cpp"), encoding="utf-8").read()
    check(registry.count("(),\n") == len(rows), "kernel_registry() does not hold every row once")
    header = os.path.join(tmp, "menu.h")
    check(run(MENU, "--model", header).returncode == 0, "--model failed")
    text = open(header, encoding="utf-8").read()
    dims = sorted({int(r["d"]) for r in rows})
    check(f"kHeadDims = {{{', '.join(map(str, dims))}}}" in text, "kHeadDims is not the rows' head dimensions")
    groups = {(r["schedule"], r["pass"], r["d"]) for r in rows}
    defaults = text.split("kDefaults = ", 1)[1].split("}};", 1)[0]
    check(defaults.count('{"') == len(groups), "not one default per (schedule, pass, d)")
    kernels = text.split("kKernels = ", 1)[1].split("}};", 1)[0]
    check(kernels.count('{"') == len(rows), "kKernels does not hold every row once")
    firsts = {}
    for r in rows:
        firsts.setdefault((r["schedule"], r["pass"], r["d"], r["dtype"]), r)
    lean_groups = {k for k, r in firsts.items() if any(o["build"] == "lean" for o in rows
                                                        if (o["schedule"], o["pass"], o["d"], o["dtype"]) == k)}
    check(all(firsts[k]["build"] == "lean" for k in lean_groups), "a lean group's first row is not lean")

    # Each architecture's files in its own folder, and --arch compiles that architecture's rows alone.
    for arch in ("sm80", "sm90a"):
        only = run(MENU, "--list", tmp, "--full", "--arch", arch).stdout.split()
        insts = [f for f in only if "/inst/" in f]
        check(insts and all(f"/inst/{arch}/" in f for f in insts), f"--arch {arch}: {insts[:3]}")
        check(set(insts) == {f for f in full if f"/inst/{arch}/" in f}, f"--arch {arch} is not the full list's {arch}")

    # flash3: the (pass, d, dtype, plain) variants and tiles its hand-written registry held, lean and full.
    def flash3_kernels(args):
        out = os.path.join(tmp, "f3")
        check(run(MENU, "--cuda", out, *args).returncode == 0, f"--cuda {args} failed")
        found = set()
        for f in run(MENU, "--list", out, *args).stdout.split():
            for m in re.finditer(r"menu_entry<Flash3(Fwd|FwdPlain|Bwd)Kernel, (\w+), (\d+), (\d+), (\d+), (\d+), (\d+)>"
                                 r"\(\"flash3\"\)", open(f, encoding="utf-8").read()):
                check("/inst/sm90a/" in f, f"flash3 instantiated outside inst/sm90a: {f}")
                kind, t, d, br, bc, warps, stages = m.groups()
                found.add(("bwd" if kind == "Bwd" else "fwd", int(d), {"__half": "fp16"}.get(t, "bf16"),
                           kind == "FwdPlain", (int(br), int(bc), int(warps), int(stages))))
        return found

    def tile(p, d):
        return (64 if p == "bwd" and d == 128 else 128, 128, 12, 2)

    full_f3 = {("fwd", d, t, plain, tile("fwd", d))
               for d in (64, 128) for t in ("fp16", "bf16") for plain in (False, True)}
    full_f3 |= {("bwd", d, t, False, tile("bwd", d)) for d in (64, 128) for t in ("fp16", "bf16")}
    lean_f3 = {("fwd", 128, "fp16", False, tile("fwd", 128)), ("bwd", 128, "fp16", False, tile("bwd", 128))}
    check(flash3_kernels([]) == lean_f3, f"flash3's lean kernels: {sorted(flash3_kernels([]))}")
    check(flash3_kernels(["--full"]) == full_f3, f"flash3's full kernels: {sorted(flash3_kernels(['--full']))}")
    check(flash3_kernels(["--arch", "sm80"]) == set(), "flash3 compiled without --arch sm90a")

    head = "schedule,pass,kernel,d,dtype,br,bc,warps,stages,build,arch\n"
    good = "flash2,fwd,flash2_fwd,64,fp16,128,64,4,2,lean,sm80\n"
    broken = {
        "columns": "schedule,pass,d\n" + good,
        "cells": head + "flash2,fwd,flash2_fwd,64,fp16,128,64,4,2,lean\n",
        "number": head + "flash2,fwd,flash2_fwd,64,fp16,128,0,4,2,lean,sm80\n",
        "pass": head + "flash2,sideways,flash2_fwd,64,fp16,128,64,4,2,lean,sm80\n",
        "dtype": head + "flash2,fwd,flash2_fwd,64,fp8,128,64,4,2,lean,sm80\n",
        "build": head + "flash2,fwd,flash2_fwd,64,fp16,128,64,4,2,fast,sm80\n",
        "arch": head + "flash2,fwd,flash2_fwd,64,fp16,128,64,4,2,lean,sm70\n",
        "duplicate": head + good + good,
        "first row full": head + "flash2,fwd,flash2_fwd,64,fp16,64,64,4,2,full,sm80\n" + good,
        "defaults differ by type": head + good + "flash2,fwd,flash2_fwd,64,bf16,64,64,4,2,lean,sm80\n",
    }
    for what, table in broken.items():
        path = os.path.join(tmp, "bad.csv")
        with open(path, "w", encoding="utf-8") as f:
            f.write(table)
        p = run(path, "--model", header)
        lines = p.stderr.strip().split("\n")
        check(p.returncode == 2 and len(lines) == 1 and "bad.csv" in lines[0],
              f"{what}: rc {p.returncode}, {p.stderr!r}")

    # The compiled variants' table (scripts/ptxas-registers.py --table): the real one becomes one kCompiled
    # entry a row; a row of no menu kernel, or a malformed one, is refused in one line.
    table = os.path.join(REPO, "cuda/kernels/compiled-sm90.csv")
    compiled = [line for line in open(table, encoding="utf-8") if line.strip() and not line.startswith("#")][1:]
    p = run(MENU, "--model", header, "--compiled", table)
    text = open(header, encoding="utf-8").read() if p.returncode == 0 else ""
    check(p.returncode == 0 and f"std::array<Compiled, {len(compiled)}> kCompiled" in text,
          f"--compiled {table}: rc {p.returncode}, {p.stderr!r}")
    chead = "kernel,d,dtype,br,bc,warps,stages,arch,registers,spill_stores_bytes,spill_loads_bytes\n"
    cgood = "flash2_fwd,64,fp16,128,64,4,2,sm_90,240,0,0\n"
    bad_compiled = {
        "compiled columns": "kernel,d\n" + cgood,
        "compiled cells": chead + "flash2_fwd,64,fp16,128,64,4,2,sm_90,240\n",
        "compiled number": chead + "flash2_fwd,64,fp16,128,64,4,2,sm_90,many,0,0\n",
        "compiled arch": chead + "flash2_fwd,64,fp16,128,64,4,2,hopper,240,0,0\n",
        "compiled variant not in the menu": chead + "flash2_fwd,64,fp16,128,64,4,7,sm_90,240,0,0\n",
    }
    for what, table in bad_compiled.items():
        path = os.path.join(tmp, "bad-compiled.csv")
        with open(path, "w", encoding="utf-8") as f:
            f.write(table)
        p = run(MENU, "--model", header, "--compiled", path)
        lines = p.stderr.strip().split("\n")
        check(p.returncode == 2 and len(lines) == 1 and "bad-compiled.csv" in lines[0],
              f"{what}: rc {p.returncode}, {p.stderr!r}")
for f in failures:
    print(f"kernel-menu: {f}")
print(f"kernel-menu: {len(rows)} rows, {len(failures)} failures")
sys.exit(1 if failures else 0)
