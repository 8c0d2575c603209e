#!/usr/bin/env python3
"""Registers, spills and stack of every instantiated attention kernel, as ptxas reports them.

Builds the CUDA backend with the whole kernel menu (-DIOSIM_CUDA_FULL_TILES=ON) for one architecture
with `-Xptxas -v` in a build folder of its own (no GPU needed: ptxas runs at compile time), or reads
the log of such a build, and writes one JSON record per kernel:
  {schedule, pass, d, dtype, br, bc, warps, stages, registers, spill_stores_bytes, spill_loads_bytes,
   smem_static_bytes, stack_frame_bytes, barriers, kernel}
The model's register estimate (the kernel families' register models) is compared against this table.

  scripts/ptxas-registers.py [--arch 90] [--build-dir build-ptxas] [--jobs 2] [--log FILE]
                          [--out results/ptxas-registers-sm90-cuda<version>.json]
                          [--table cuda/kernels/compiled-sm90.csv]
  scripts/ptxas-registers.py --check cuda/kernels/compiled-sm90.csv --objects BUILD_DIR

--log FILE parses FILE instead of building (and --build-dir writes its build log to
<build-dir>/ptxas.log, which --log can read again later). --table also writes the table the model
compiles in (cuda/kernels/compiled-sm<arch>.csv: each menu kernel's registers and spills, which the
time model prices iosim's kernels from; sim/schedule/kernel_registers.h).

--check TABLE --objects BUILD_DIR: whether TABLE still says what a CUDA build's cubins do. Every
attention kernel compiled in BUILD_DIR (cuobjdump --dump-resource-usage of its objects, for TABLE's
architecture) must have a row with the same registers, and no spills where the row has none; exit 1
naming each that differs (the kernels changed: regenerate the table with --table), 77 where there is
no CUDA build or no cuobjdump (CUDA's, else the one the triton wheel carries).
"""
import argparse
import datetime
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Demangled kernel names of cuda/kernels/*.cuh and what their template arguments mean. The traits'
# defaulted arguments appear in the mangled name, so warps and stages are always spelled out where
# they are template parameters; elsewhere they follow from the family's rule (comment beside each).
FAMILIES = [
    # flash2_fwd_kernel<T, Flash2FwdTraits<D, BR, BC, WARPS, STAGES>>
    (re.compile(r"flash2_fwd_kernel<(__half|__nv_bfloat16), "
                r"iosim::gpu::kern::Flash2FwdTraits<(\d+), (\d+), (\d+), (\d+), (\d+)> ?>"),
     "flash2", "fwd", lambda g: dict(d=g[1], br=g[2], bc=g[3], warps=g[4], stages=g[5])),
    # flash1_fwd_kernel<T, Flash1FwdTraits<D, BR, BC>>: B_r / 16 warps, K/V once per step (1 stage)
    (re.compile(r"flash1_fwd_kernel<(__half|__nv_bfloat16), iosim::gpu::kern::Flash1FwdTraits<(\d+), (\d+), (\d+)> ?>"),
     "flash1", "fwd", lambda g: dict(d=g[1], br=g[2], bc=g[3], warps=g[2] // 16, stages=1)),
    # flash{1,2}_bwd_kernel<T, FlashBwdTraits<D, BR, BC, FLASH1, NW>>: Q_i, dO_i once per step (1 stage)
    (re.compile(r"flash([12])_bwd_kernel<(__half|__nv_bfloat16), "
                r"iosim::gpu::kern::FlashBwdTraits<(\d+), (\d+), (\d+), (true|false), (\d+)> ?>"),
     None, "bwd", lambda g: dict(d=g[1], br=g[2], bc=g[3], warps=g[5], stages=1)),
]


def demangle(names):
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True).stdout
    return out.splitlines()


def parse(log):
    """ptxas -v blocks: 'Compiling entry function' … 'Function properties' + stack/spill line … 'Used'."""
    kernels, cur = [], None
    for line in log.splitlines():
        m = re.search(r"Compiling entry function '(\w+)' for '(sm_\d+)'", line)
        if m:
            cur = {"mangled": m.group(1), "arch": m.group(2)}
            kernels.append(cur)
            continue
        if cur is None:
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m:
            cur.update(stack_frame_bytes=int(m.group(1)), spill_stores_bytes=int(m.group(2)),
                       spill_loads_bytes=int(m.group(3)))
            continue
        m = re.search(r"Used (\d+) registers", line)
        if m:
            cur["registers"] = int(m.group(1))
            b = re.search(r"used (\d+) barriers", line)
            cur["barriers"] = int(b.group(1)) if b else 0
            s = re.search(r"(\d+) bytes smem", line)
            cur["smem_static_bytes"] = int(s.group(1)) if s else 0
    # One record per kernel: a kernel compiled in two files (it is not) would appear once.
    seen, unique = set(), []
    for k in kernels:
        if k["mangled"] not in seen and "registers" in k:
            seen.add(k["mangled"])
            unique.append(k)
    return unique


def records(kernels):
    names = demangle([k["mangled"] for k in kernels])
    recs, others = [], []
    for k, name in zip(kernels, names):
        rec = None
        for rx, schedule, ps, fields in FAMILIES:
            m = rx.search(name)
            if not m:
                continue
            # g[0] the element type, then the traits' integers (the backward's FLASH1 flag as text)
            g = [int(x) if x.isdigit() else x for x in m.groups()]
            if schedule is None:  # the backward regex: flash1 or flash2 from the name
                schedule = "flash" + str(g[0])
                g = g[1:]
            dtype = "fp16" if g[0] == "__half" else "bf16"
            f = fields(g)
            rec = {"schedule": schedule, "pass": ps, "d": f["d"], "dtype": dtype, "br": f["br"], "bc": f["bc"],
                   "warps": f["warps"], "stages": f["stages"]}
            break
        stats = {key: k.get(key, 0) for key in ("registers", "spill_stores_bytes", "spill_loads_bytes",
                                                 "smem_static_bytes", "stack_frame_bytes", "barriers")}
        if rec is None:
            others.append({"kernel": name, "arch": k["arch"], **stats})
        else:
            recs.append({**rec, **stats, "arch": k["arch"], "kernel": name})
    def key(r):
        return r["schedule"], r["pass"], r["d"], r["dtype"], r["br"], r["bc"], r["warps"], r["stages"]

    return sorted(recs, key=key), sorted(others, key=lambda r: r["kernel"])


TABLE_COLUMNS = ["kernel", "d", "dtype", "br", "bc", "warps", "stages", "arch", "registers",
                 "spill_stores_bytes", "spill_loads_bytes"]
KERNEL_OF = {("flash1", "fwd"): "flash1_fwd", ("flash2", "fwd"): "flash2_fwd",
             ("flash1", "bwd"): "flash1_bwd", ("flash2", "bwd"): "flash2_bwd"}


def write_table(path, recs, release, full, flags):
    """The model's table: one row a compiled attention kernel (cuda/kernels/generate_kernels.py reads it)."""
    arch = recs[0]["arch"] if recs else "sm_90"
    with open(path, "w") as f:
        f.write(f"# Registers and spills of every attention kernel of menu.csv as compiled for {arch} by nvcc "
                f"{release} ({full}),\n"
                f"# {flags}, the whole menu: ptxas -v, written by scripts/ptxas-registers.py --table.\n"
                "# The time model prices iosim's kernels from these rows where a problem runs one of them, and from\n"
                "# its families' fitted register model elsewhere (sim/schedule/kernel_registers.h). Regenerate it\n"
                "# when a kernel changes: a CUDA build's test (ctest -R compiled-table) fails while it is stale.\n")
        f.write(",".join(TABLE_COLUMNS) + "\n")
        for r in recs:
            row = dict(r, kernel=KERNEL_OF[(r["schedule"], r["pass"])])
            f.write(",".join(str(row[c]) for c in TABLE_COLUMNS) + "\n")


def cuobjdump():
    for path in (os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "cuobjdump"),):
        if os.access(path, os.X_OK):
            return path
    try:
        import triton
    except ImportError:
        return None
    path = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "cuobjdump")
    return path if os.access(path, os.X_OK) else None


def resource_usage(tool, objects, arch):
    """{mangled name: {registers, local_bytes}} of every kernel compiled for `arch` in `objects`."""
    out = {}
    for obj in objects:
        text = subprocess.run([tool, "--dump-resource-usage", obj], capture_output=True, text=True).stdout
        cur_arch, fn = None, None
        for line in text.splitlines():
            m = re.match(r"\s*arch = (sm_\d+)", line)
            if m:
                cur_arch = m.group(1)
                continue
            m = re.match(r"\s*Function (\w+):", line)
            if m:
                fn = m.group(1)
                continue
            m = re.match(r"\s*REG:(\d+) STACK:(\d+) SHARED:(\d+) LOCAL:(\d+)", line)
            if m and fn and cur_arch == arch:
                out[fn] = {"registers": int(m.group(1)), "local_bytes": int(m.group(4))}
                fn = None
    return out


def check(table, build_dir):
    """Exit status of --check: 0 where every kernel the build compiled matches its row."""
    tool = cuobjdump()
    objects = [os.path.join(d, f) for d, _, fs in os.walk(os.path.join(build_dir, "cuda")) for f in fs
               if f.endswith(".cu.o") and "/inst/" in os.path.join(d, f)]
    if tool is None or not objects:
        print(f"scripts/ptxas-registers.py --check: skipped, {'no cuobjdump' if tool is None else 'no CUDA build'} "
              f"({build_dir})")
        return 77
    with open(table) as f:
        lines = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    rows = [dict(zip(TABLE_COLUMNS, line.split(","))) for line in lines[1:]]
    arch = rows[0]["arch"] if rows else "sm_90"
    usage = resource_usage(tool, objects, arch)
    # cuobjdump's LOCAL (local memory a thread) stands for ptxas's spill stores: 0 exactly where none.
    kernels = [{"mangled": k, "arch": arch, "registers": v["registers"], "spill_stores_bytes": v["local_bytes"]}
               for k, v in usage.items()]
    recs, _ = records(kernels)
    index = {tuple(str(r[c]) for c in TABLE_COLUMNS[:7]): r for r in rows}
    bad = 0
    for r in recs:
        key = (KERNEL_OF[(r["schedule"], r["pass"])], str(r["d"]), r["dtype"], str(r["br"]), str(r["bc"]),
               str(r["warps"]), str(r["stages"]))
        row = index.get(key)
        if row is None:
            print(f"  {' '.join(key)}: compiled, but no row in {table}")
            bad += 1
        elif (int(row["registers"]) != r["registers"]
              or (int(row["spill_stores_bytes"]) == 0) != (r["spill_stores_bytes"] == 0)):
            print(f"  {' '.join(key)}: {r['registers']} registers, {r['spill_stores_bytes']} B local in the build; "
                  f"{row['registers']} registers, {row['spill_stores_bytes']} B spilled in the table")
            bad += 1
    print(f"{len(recs)} compiled attention kernels against {table}: {bad} differ"
          + (" (regenerate it: scripts/ptxas-registers.py --table)" if bad else ""))
    return 1 if bad or not recs else 0


def nvcc_version():
    out = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout
    m = re.search(r"release (\d+\.\d+), (V[\d.]+)", out)
    return (m.group(1), m.group(2)) if m else ("unknown", "unknown")


def build(a):
    cfg = ["cmake", "-S", ROOT, "-B", a.build_dir, "-DCMAKE_BUILD_TYPE=Release", f"-DCMAKE_CUDA_ARCHITECTURES={a.arch}",
           "-DIOSIM_CUDA_FULL_TILES=ON", "-DCMAKE_CUDA_FLAGS=-Xptxas -v", "-DIOSIM_BUILD_BENCH=OFF",
           "-DIOSIM_NOTEBOOK_TESTS=OFF", "-DIOSIM_BUILD_TESTS=OFF"]
    subprocess.run(cfg, check=True, stdout=subprocess.DEVNULL)
    log_path = os.path.join(a.build_dir, "ptxas.log")
    # Every kernel source again (a cached object would print nothing), then the backend's library.
    subprocess.run(["cmake", "--build", a.build_dir, "--target", "clean"], check=True, stdout=subprocess.DEVNULL)
    with open(log_path, "w") as log:
        r = subprocess.run(["cmake", "--build", a.build_dir, "-j", str(a.jobs), "--target", "iosim_gpu"],
                           stdout=log, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        print(f"scripts/ptxas-registers.py: the build failed (exit {r.returncode}); see {log_path}", file=sys.stderr)
        sys.exit(1)
    return log_path


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arch", default="90")
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build-ptxas"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--log", help="parse this build log instead of building")
    ap.add_argument("--out", help="JSON file (default results/ptxas-registers-sm<arch>-cuda<version>.json)")
    ap.add_argument("--flags", help="with --log: the flags the logged build compiled with, for the record",
                    default="-O3 -DNDEBUG --generate-code=arch=compute_XX,code=[compute_XX,sm_XX] -Xptxas -v "
                            "(CMake Release)")
    ap.add_argument("--table", help="also write the model's table (cuda/kernels/compiled-sm<arch>.csv)")
    ap.add_argument("--check", metavar="TABLE", help="compare TABLE with the cubins of --objects BUILD_DIR")
    ap.add_argument("--objects", metavar="BUILD_DIR", help="with --check: a CUDA build")
    a = ap.parse_args()
    if a.check:
        if not a.objects:
            print("scripts/ptxas-registers.py: --check needs --objects BUILD_DIR", file=sys.stderr)
            return 2
        return check(a.check, a.objects)
    release, full = nvcc_version()
    log_path = a.log or build(a)
    kernels = parse(open(log_path, errors="replace").read())
    if not kernels:
        print(f"scripts/ptxas-registers.py: no ptxas -v output in {log_path}", file=sys.stderr)
        return 1
    recs, others = records(kernels)
    out = a.out or os.path.join(ROOT, "results", f"ptxas-registers-sm{a.arch}-cuda{release}.json")
    doc = {
        "what": "ptxas -v of every instantiated attention kernel (cuda/kernels), full tile menu",
        "nvcc": f"{release} ({full})", "arch": f"sm_{a.arch}",
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
        "flags": a.flags,
        "kernels": recs,
        "other_kernels": others,
    }
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    if a.table:
        write_table(a.table, recs, release, full, a.flags)
    spills = [r for r in recs if r["spill_stores_bytes"] or r["spill_loads_bytes"]]
    print(f"{len(recs)} attention kernels ({len(others)} others); {len(spills)} spill; wrote {out}")
    for r in spills:
        print(f"  spills: {r['schedule']} {r['pass']} d={r['d']} {r['dtype']} {r['br']}x{r['bc']} "
              f"{r['warps']}w{r['stages']}s: {r['spill_stores_bytes']} B stores, {r['spill_loads_bytes']} B loads")
    return 0


if __name__ == "__main__":
    sys.exit(main())
