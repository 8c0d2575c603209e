#!/usr/bin/env python3
"""scripts/sass-step-mix.py: the committed K/V loop of one compiled flash2 forward kernel and the Q loop of one
backward kernel (data/, cut by its --excerpt from nvdisasm -gi -c of the menu's cubin) derive the rows
cuda/kernels/step-mix-sm90.csv holds (the forward's unmasked, masked and window steps; the backward's step);
a row that differs fails --check (exit 1); a malformed table is one line, exit 2. The excerpts' line
annotations name flash2_fwd.cuh's and flash2_bwd.cuh's lines as compiled: after an edit of a kernel,
regenerate the table (scripts/sass-step-mix.py --table) and its excerpt (--excerpt)."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(ROOT, "scripts", "sass-step-mix.py")
TABLE = os.path.join(ROOT, "cuda", "kernels", "step-mix-sm90.csv")
EXCERPT = os.path.join(HERE, "data", "flash2_fwd_d64_fp16_128x32_w4_s2.sass")
VARIANT = "flash2_fwd,64,fp16,128,32,4,2,sm_90,"
BWD_EXCERPT = os.path.join(HERE, "data", "flash2_bwd_d64_fp16_64x64_w4.sass")
BWD_VARIANT = "flash2_bwd,64,fp16,64,64,4,1,sm_90,"
ALU = 11  # the alu cell of a row


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


def check_with(lines, failures, what, expect, excerpt=EXCERPT):
    """--check of the table `lines` against `excerpt`: `expect` its exit status."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "t.csv")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        r = run("--check", path, excerpt)
        if r.returncode != expect:
            failures.append(f"{what}: exit {r.returncode}, not {expect}: {r.stdout}{r.stderr}")
        return r


def main():
    failures = []
    r = run("--check", TABLE, EXCERPT)
    if r.returncode != 0 or "3 rows of 1 kernels" not in r.stdout:
        failures.append(f"the committed excerpt against the table: exit {r.returncode}: {r.stdout}{r.stderr}")
    r = run("--check", TABLE, BWD_EXCERPT)
    if r.returncode != 0 or "1 rows of 1 kernels" not in r.stdout:
        failures.append(f"the committed backward excerpt against the table: exit {r.returncode}: {r.stdout}{r.stderr}")
    with open(TABLE) as f:
        lines = f.read().splitlines()
    for variant, step, excerpt in [(VARIANT, s, EXCERPT) for s in ("unmasked", "masked", "window")] + [
            (BWD_VARIANT, "unmasked", BWD_EXCERPT)]:
        row = [i for i, line in enumerate(lines) if line.startswith(f"{variant}{step},")]
        if len(row) != 1:
            failures.append(f"the table has {len(row)} {step} rows for {variant}")
            continue
        cells = lines[row[0]].split(",")
        cells[ALU] = str(int(cells[ALU]) + 1)
        cells[-1] = str(int(cells[-1]) + 1)      # total
        changed = lines[:row[0]] + [",".join(cells)] + lines[row[0] + 1:]
        check_with(changed, failures, f"a changed {variant}{step} row", 1, excerpt)
        bad = lines[:row[0]] + [",".join(cells[:-1] + [str(int(cells[-1]) + 5)])] + lines[row[0] + 1:]
        check_with(bad, failures, f"a {variant}{step} row whose pipes do not add up to its total", 2, excerpt)
    r = check_with(["kernel,d", "flash2_fwd,64"], failures, "a malformed table", 2)
    if len(r.stderr.strip().splitlines()) != 1:
        failures.append(f"a malformed table: stderr {r.stderr!r}")
    for msg in failures:
        print(msg)
    print("ok" if not failures else f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
