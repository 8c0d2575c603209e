#!/usr/bin/env python3
"""flashdecode's runs that launch the combine kernel: shared-memory wavefronts, error before and after it is
counted, from scripts/wavefront-validation.py --json-out files (which hold each kernel's count).

  whole run: |measured - model| / measured, the model without the combine's count (before: the
             elementwise family's none) and with it (after);
  combine:   its share of ncu's figure, taken as the measurement less the split kernel's count, against
             0 (before) and its count (after).

  combine_errors.py NAME=FILE.json ...
"""
import json
import statistics
import sys

COMBINE = "flashdecode_combine"


def line(label, errs):
    b = [abs(x) for x, _ in errs]
    a = [abs(y) for _, y in errs]
    return (f"{label:32} {len(errs):4d} {100 * statistics.median(b):9.2f}% {100 * statistics.median(a):8.2f}% "
            f"{100 * max(b):9.2f}% {100 * max(a):8.2f}%")


def main():
    print(f"{'set / measure':32} {'n':>4} {'median before':>10} {'after':>8} {'max before':>10} {'after':>8}")
    every_run, every_combine = [], []
    for arg in sys.argv[1:]:
        name, path = arg.split("=", 1)
        whole, alone = [], []
        for k in json.load(open(path)):
            c = k["kernels"].get(COMBINE)
            if c is None:
                continue
            m, after = k["measured"], k["after"]
            whole.append(((m - (after - c)) / m, (m - after) / m))
            rest = m - (after - c)
            alone.append((1.0, (rest - c) / rest))
        if whole:
            print(line(f"{name}: whole run", whole))
            print(line(f"{name}: combine alone", alone))
        every_run += whole
        every_combine += alone
    print(line("all: whole run", every_run))
    print(line("all: combine alone", every_combine))


if __name__ == "__main__":
    main()
