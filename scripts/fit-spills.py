#!/usr/bin/env python3
"""Register-spill stores of PyTorch's FlashAttention-2 kernels, fitted from Nsight Compute's counts.

Reads the CSVs of `scripts/gpu fa2-writes` (plain files or the logs tarball of a results folder), takes
each main kernel's local store sectors (l1tex__t_sectors_pipe_lsu_mem_local_op_st) and fits

    spill bytes = blocks x per_block + K/V (or Q) steps x per_step

per compiled kernel (iosim's kernel name, head dimension, mask), where a block's steps follow the
kernel's loop: the forward one step a K/V tile (to the diagonal under the causal mask), its split-KV
kernel a split's share of them, the backward one step a Q tile. Prints the figures for
sim/schedule/flash2/spills.cpp, each shape's spills against the fit (fitted or held out), and with
--write-data the rows the doctest tests/549-torch-spills.cpp reads (tests/data/h100-fa2-spills.csv).

Usage: scripts/fit-spills.py [--write-data tests/data/h100-fa2-spills.csv] [results folders ...]
"""
import argparse
import csv
import io
import math
import re
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ["results/h100-2026-12-06e/fa2-writes", "results/h100-2026-12-06f/fa2-writes",
           "results/h100-2026-12-06f/fa2-writes-causal"]
SECTOR = 32
KINDS = [("flash_fwd_splitkv_kernel<", "flashdecode_split"), ("flash_fwd_kernel<", "flash2_fwd"),
         ("flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<", "flash2_bwd")]

# Which shapes fit which kernel's figures; every other shape of that kernel is held out. A group of one
# shape fits per_block alone, or per_step alone where the kernel's spills are known to follow steps.
# The forward's causal kernel (d = 64) is held out against the unmasked one's figures; at d = 128 the
# unmasked and the causal shape are the only two and fit both figures together.
FITS = {
    ("flash2_fwd", 64, "any"): {"2,16,2048,64", "8,16,1024,64"},
    ("flash2_fwd", 128, "any"): {"4,16,2048,128", "4,16,2048,128-causal"},
    # One split-KV shape fits a per-step figure with no per-block one (its spills are in the loop); the
    # other checks it.
    ("flashdecode_split", 64, "any"): {"1,2,4096,64"},
    # Two step counts (16 and 32 Q tiles a block) fit both figures; three more shapes check them.
    ("flash2_bwd", 64, "none"): {"2,16,2048,64", "2,16,4096,64"},
    ("flash2_bwd", 64, "causal"): {"2,16,2048,64-causal"},
    ("flash2_bwd", 128, "none"): {"4,16,2048,128"},
    ("flash2_bwd", 128, "causal"): {"4,16,2048,128-causal"},
}
PER_STEP_ONLY = {("flashdecode_split", 64, "any")}


def csv_texts(folder):
    folder = ROOT / folder
    for p in sorted(folder.glob("ncu-fa2-*.csv")):
        yield p.name, p.read_text()
    for t in sorted(folder.glob("*.tar.gz")):
        with tarfile.open(t) as tar:
            for m in tar.getmembers():
                name = Path(m.name).name
                if name.startswith("ncu-fa2-") and name.endswith(".csv"):
                    yield name, tar.extractfile(m).read().decode()


def num(s):
    return int(s.replace(",", "")) if s else 0


def steps_total(kernel, shape, causal, traits, grid):
    b, h, n, _ = shape
    _, bm, bn, _ = traits
    gx, gy, gz = grid
    if kernel == "flash2_fwd":
        per = [math.ceil((min((m + 1) * bm, n) if causal else n) / bn) for m in range(gx)]
        return sum(per) * gy * gz
    if kernel == "flashdecode_split":
        assert not causal
        n_blocks = math.ceil(n / bn)
        per_split = math.ceil(n_blocks / gy)
        per = [max(0, min(n_blocks, (s + 1) * per_split) - s * per_split) for s in range(gy)]
        return sum(per) * gx * gz
    m_blocks = math.ceil(n / bm)  # the backward: one step a Q tile, from the diagonal under the mask
    per = [m_blocks - ((j * bn) // bm if causal else 0) for j in range(gx)]
    return sum(per) * gy * gz


def rows():
    out = {}
    for folder in FOLDERS:
        for name, text in csv_texts(folder):
            tag = name[len("ncu-fa2-"):-len(".csv")]
            causal = tag.endswith("-causal")
            shape = tuple(int(x) for x in tag.removesuffix("-causal").split(","))
            table = list(csv.reader(io.StringIO(text)))
            head = next(i for i, r in enumerate(table) if r and r[0] == "ID")
            col = {c: i for i, c in enumerate(table[head])}
            for r in table[head + 2:]:
                if len(r) != len(table[head]):
                    continue
                kname = r[col["Kernel Name"]]
                kernel = next((k for pat, k in KINDS if pat in kname), None)
                if kernel is None:
                    continue
                traits = tuple(int(x) for x in re.search(r"kernel_traits<(\d+), (\d+), (\d+), (\d+)", kname).groups())
                grid = tuple(num(r[col[f"launch__grid_dim_{a}"]]) for a in "xyz")
                row = {
                    "tag": tag, "shape": shape, "causal": causal, "kernel": kernel, "d": traits[0],
                    "blocks": num(r[col["launch__grid_size"]]),
                    "steps": steps_total(kernel, shape, causal, traits, grid),
                    "l2_write_sectors": num(r[col["lts__t_sectors_srcunit_tex_op_write.sum"]]),
                    "global_store_sectors": num(r[col["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]]),
                    "local_store_sectors": num(r[col["l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum"]]),
                    "dram_write_bytes": num(r[col["dram__bytes_write.sum"]]),
                }
                key = (tag, kernel)
                if key in out:  # the forward runs twice (forward alone, then forward + backward): alike
                    assert out[key]["local_store_sectors"] == row["local_store_sectors"], key
                    continue
                out[key] = row
    return list(out.values())


def group_of(row):
    for mask in ("causal" if row["causal"] else "none", "any"):
        if (row["kernel"], row["d"], mask) in FITS:
            return (row["kernel"], row["d"], mask)
    raise SystemExit(f"no fit group for {row['tag']} {row['kernel']}")


def solve(points, per_step_only):
    """Least squares of bytes = a·blocks + b·steps (a = 0 with per_step_only; b = 0 for one point),
    rounded to whole sectors."""
    if per_step_only:
        b = sum(p[1] * p[2] for p in points) / sum(p[1] ** 2 for p in points)
        return 0, SECTOR * round(b / SECTOR)
    if len(points) == 1:
        return SECTOR * round(points[0][2] / points[0][0] / SECTOR), 0
    s_bb = sum(p[0] ** 2 for p in points)
    s_ss = sum(p[1] ** 2 for p in points)
    s_bs = sum(p[0] * p[1] for p in points)
    s_by = sum(p[0] * p[2] for p in points)
    s_sy = sum(p[1] * p[2] for p in points)
    det = s_bb * s_ss - s_bs ** 2
    a = (s_by * s_ss - s_sy * s_bs) / det
    b = (s_sy * s_bb - s_by * s_bs) / det
    return SECTOR * round(a / SECTOR), SECTOR * round(b / SECTOR)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write-data", type=Path, help="write the measured rows and their roles as CSV")
    args = ap.parse_args()
    data = rows()
    figures = {}
    for g in FITS:
        pts = [(r["blocks"], r["steps"], r["local_store_sectors"] * SECTOR) for r in data
               if group_of(r) == g and r["tag"] in FITS[g]]
        if len(pts) != len(FITS[g]):
            raise SystemExit(f"{g}: {len(pts)} of {len(FITS[g])} fitting shapes found")
        figures[g] = solve(pts, g in PER_STEP_ONLY)
    print("kernel              d  mask    per_block  per_step   (bytes of local stores)")
    for (k, d, m), (a, b) in figures.items():
        print(f"{k:<18} {d:>3}  {m:<6} {a:>10} {b:>9}")
    print("\nshape                 kernel             blocks   steps  spill MB meas  fit     err    role")
    for r in sorted(data, key=lambda r: (r["kernel"], r["d"], r["tag"])):
        g = group_of(r)
        a, b = figures[g]
        pred = a * r["blocks"] + b * r["steps"]
        meas = r["local_store_sectors"] * SECTOR
        r["role"] = "fitted" if r["tag"] in FITS[g] else "held-out"
        print(f"{r['tag']:<21} {r['kernel']:<18} {r['blocks']:>6} {r['steps']:>7} {meas / 1e6:9.3f} "
              f"{pred / 1e6:8.3f} {100 * (pred - meas) / meas:+6.2f}%  {r['role']}")
    if args.write_data:
        cols = ["batch", "heads", "n", "d", "causal", "kernel", "blocks", "l2_write_sectors", "global_store_sectors",
                "local_store_sectors", "dram_write_bytes", "role"]
        with open(args.write_data, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(cols)
            for r in sorted(data, key=lambda r: (r["kernel"], r["d"], r["tag"])):
                w.writerow([*r["shape"], int(r["causal"]), r["kernel"], r["blocks"], r["l2_write_sectors"],
                            r["global_store_sectors"], r["local_store_sectors"], r["dram_write_bytes"], r["role"]])


if __name__ == "__main__":
    sys.exit(main())
