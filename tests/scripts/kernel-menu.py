#!/usr/bin/env python3
"""The kernel menu's generator (cuda/kernels/generate_kernels.py) on the real table and on broken ones.

The real table: every (schedule, pass, d, dtype) group starts with a lean row, the lean build's files are
a subset of the full build's, every row of the full build is one menu_entry call, and the model's header
lists one default per (schedule, pass, d) with the head dimensions of the rows. A broken table: exit 2 and
one line on stderr naming the file's line.
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
    check(text.count('{"') == len(groups), "not one default per (schedule, pass, d)")
    firsts = {}
    for r in rows:
        firsts.setdefault((r["schedule"], r["pass"], r["d"], r["dtype"]), r)
    check(all(r["build"] == "lean" for r in firsts.values()), "a group's first row is not lean")

    head = "schedule,pass,kernel,d,dtype,br,bc,warps,stages,build\n"
    good = "flash2,fwd,flash2_fwd,64,fp16,128,64,4,2,lean\n"
    broken = {
        "columns": "schedule,pass,d\n" + good,
        "cells": head + "flash2,fwd,flash2_fwd,64,fp16,128,64,4\n",
        "number": head + "flash2,fwd,flash2_fwd,64,fp16,128,0,4,2,lean\n",
        "pass": head + "flash2,sideways,flash2_fwd,64,fp16,128,64,4,2,lean\n",
        "dtype": head + "flash2,fwd,flash2_fwd,64,fp8,128,64,4,2,lean\n",
        "build": head + "flash2,fwd,flash2_fwd,64,fp16,128,64,4,2,fast\n",
        "duplicate": head + good + good,
        "first row full": head + "flash2,fwd,flash2_fwd,64,fp16,128,64,4,2,full\n",
        "defaults differ by type": head + good + "flash2,fwd,flash2_fwd,64,bf16,64,64,4,2,lean\n",
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
