#!/usr/bin/env python3
"""DRAM reads of PyTorch's FlashAttention-2 backward kernels under Nsight Compute, set beside the
closed form of each kernel from an empty L2 and beside the GPU model's prediction.

ncu (its default --cache-control all) flushes the L2 before every kernel it profiles, so each kernel's
dram__bytes_read counts its inputs from DRAM even where the kernel before it left them in the L2. The
GPU model predicts a pass as it runs untouched, the L2 kept from kernel to kernel. This script reads the
CSVs of `scripts/gpu fa2-writes` (plain files or a results folder's logs tarball), prints per shape and
kernel: ncu's DRAM reads, the closed form (sim/schedule/flash2/fa2_bwd_reads.h, restated here), and with
--iosim the model's cold prediction twice: as a timed run (the L2 kept between kernels) and as ncu runs
it (--l2-flush-kernels); with --write-data it writes the rows tests/570-torch-bwd-reads.cpp reads.

Usage: scripts/fa2-bwd-reads.py [--iosim build/iosim] [--write-data tests/data/h100-fa2-bwd-reads.csv]
"""
import argparse
import csv
import io
import json
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ["results/h100-2026-12-06e/fa2-writes", "results/h100-2026-12-06f/fa2-writes",
           "results/h100-2026-12-06f/fa2-writes-causal"]
KERNELS = [("flash_bwd_dot_do_o_kernel<", "preprocess"), ("flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<", "main"),
           ("flash_bwd_convert_dq_kernel<", "convert")]
MODEL = {"flash2_bwd_preprocess": "preprocess", "flash2_bwd": "main", "flash2_bwd_convert": "convert"}


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


def measured():
    """(tag, batch, heads, n, d, causal, kernel, dram read bytes) of each backward kernel, in order."""
    out = []
    for folder in FOLDERS:
        for name, text in csv_texts(folder):
            tag = name[len("ncu-fa2-"):-len(".csv")]
            causal = tag.endswith("-causal")
            b, h, n, d = (int(x) for x in tag.removesuffix("-causal").split(","))
            table = list(csv.reader(io.StringIO(text)))
            head = next(i for i, r in enumerate(table) if r and r[0] == "ID")
            col = {c: i for i, c in enumerate(table[head])}
            for r in table[head + 2:]:
                if len(r) != len(table[head]):
                    continue
                kernel = next((k for pat, k in KERNELS if pat in r[col["Kernel Name"]]), None)
                if kernel is not None:
                    dram = int(r[col["dram__bytes_read.sum"]].replace(",", ""))
                    out.append((tag, b, h, n, d, int(causal), kernel, dram))
    return out


def flushed(b, h, n, d, elem=2):
    """Each kernel's reads from an empty L2 (fa2_bwd_flushed_reads, K/V heads = query heads)."""
    rows, acc = b * h * n * d * elem, b * h * n * d * 4
    return {"preprocess": 2 * rows, "main": 4 * rows + 2 * b * h * n * 4 + acc, "convert": acc}


def predicted(iosim, config, b, h, n, d, causal, flush):
    cmd = [iosim, "--config", str(config), "--kernels", "pytorch", "--schedule", "flash2", "--pass", "bwd",
           "--batch", str(b), "--heads", str(h), "--n", str(n), "--d", str(d), "--predict", "-f", "json"]
    if causal:
        cmd.append("--causal")
    if flush:
        cmd.append("--l2-flush-kernels")
    run = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    ks = run["runs"][0]["schedules"][0]["predicted"]["cold"]["kernels"]
    return {MODEL[k["name"]]: k["dram__bytes_read"] for k in ks}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iosim", help="the iosim binary: also print the model's cold prediction")
    ap.add_argument("--config", default=ROOT / "configs/h100.yaml")
    ap.add_argument("--write-data", help="write the measured rows here (CSV)")
    a = ap.parse_args()
    rows = measured()
    if len(rows) != 24:
        print(f"expected 24 backward kernels (8 shapes × 3) in {FOLDERS}, found {len(rows)}", file=sys.stderr)
        return 2
    if a.write_data:
        with open(a.write_data, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["batch", "heads", "n", "d", "causal", "kernel", "dram_read_bytes"])
            for r in rows:
                w.writerow(r[1:])
    print("MB; err = (measured − value) / measured")
    print(f"{'shape':22} {'kernel':10} {'ncu':>8} {'flushed':>8} {'err':>7}" + (
        f" {'model':>8} {'err':>7} {'flushed':>8} {'err':>7}" if a.iosim else ""))
    model = {}
    for tag, b, h, n, d, causal, kernel, dram in rows:
        f = flushed(b, h, n, d)[kernel]
        line = f"{tag:22} {kernel:10} {dram / 1e6:8.2f} {f / 1e6:8.2f} {(dram - f) / dram:+7.1%}"
        if a.iosim:
            for flush in (False, True):
                if (tag, flush) not in model:
                    model[tag, flush] = predicted(a.iosim, a.config, b, h, n, d, causal, flush)
                p = model[tag, flush][kernel]
                line += f" {p / 1e6:8.2f} {(dram - p) / dram:+7.1%}"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
