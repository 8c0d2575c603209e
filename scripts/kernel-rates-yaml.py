#!/usr/bin/env python3
"""A config's `kernel_rates:` section (docs/configs.md), from a run of
scripts/torch-kernels-bench.py: PyTorch's eager kernels, each timed alone at 2^30 fp16 elements.

  scripts/kernel-rates-yaml.py results/h200-2026-12-04-torch-kernels/torch-kernels.json [--source TEXT]

torch-unary is the scale (x * 0.125), torch-binary the product (x * y), torch-softmax-fwd torch.softmax
by row length. torch._softmax_backward_data runs two kernels, the product of the gradient and the
output (the binary kernel) and then the softmax backward kernel; torch-softmax-bwd is the second
alone: its bytes (two tensors read, one written) over the call's time less the product's.
Rates are bytes of the tensors read + written per second, in GB/s, rounded to whole numbers.
"""
import argparse
import json
import sys

TOTAL = 1 << 30


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json")
    ap.add_argument("--source", default="")
    a = ap.parse_args()
    doc = json.load(open(a.json))
    at = [r for r in doc["results"] if r["elements"] == TOTAL]
    one = {r["op"]: r for r in at if not r["op"].startswith("softmax")}
    mul_ms = one["mul"]["median_ms_cold"]
    source = a.source or f"scripts/torch-kernels-bench.py, {doc['device']}, {doc['date']}, torch {doc['torch']}"

    def curve(op, derive=lambda r: r["gb_per_s"]):
        rows = sorted((r for r in at if r["op"] == op), key=lambda r: r["row_length"])
        return [r["row_length"] for r in rows], [round(derive(r)) for r in rows]

    print("# PyTorch's eager kernels, each timed alone (the eager schedule's rates; docs/configs.md): bytes read")
    print(f"# + written per second, by the row length (n_kv). [H] {source}")
    print("# scripts/kernel-rates-yaml.py wrote these lines.")
    print("kernel_rates:")
    print(f"  - {{family: torch-unary, gb_per_s: {round(one['scale']['gb_per_s'])}}}")
    print(f"  - {{family: torch-binary, gb_per_s: {round(one['mul']['gb_per_s'])}}}")
    for family, op, derive in (
            ("torch-softmax-fwd", "softmax_fwd", lambda r: r["gb_per_s"]),
            ("torch-softmax-bwd", "softmax_bwd", lambda r: r["bytes"] / (r["median_ms_cold"] - mul_ms) / 1e6)):
        lengths, rates = curve(op, derive)
        print(f"  - family: {family}")
        print(f"    row_lengths: [{', '.join(map(str, lengths))}]")
        print(f"    gb_per_s: [{', '.join(map(str, rates))}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
