#!/usr/bin/env python3
"""L2 read errors before and after a model change, per schedule and pass: a markdown table.

Reads pairs of per-kernel JSONs that scripts/repredict-validation.py --json-out wrote for the same
runs (before, after) and prints, per label, schedule and pass, the kernels, and the median and max
|error| of "L2 reads from the SMs" before and after.

  scripts/lab/l2-merge-table.py LABEL=BEFORE.json,AFTER.json [LABEL=...]
"""
import json
import statistics
import sys

QUANTITY = "L2 reads from the SMs"


def rows(label, before, after):
    groups = {}
    for b, a in zip(before, after):
        if QUANTITY not in b or QUANTITY not in a:
            continue
        key = (b["schedule"], b["pass"], "causal" if b["problem"].get("causal") else "full")
        groups.setdefault(key, ([], []))
        groups[key][0].append(b[QUANTITY]["error_now"])
        groups[key][1].append(a[QUANTITY]["error_now"])
    for (schedule, pass_, mask), (eb, ea) in sorted(groups.items()):
        def fmt(errs):
            m = statistics.median(abs(e) for e in errs)
            worst = max(errs, key=abs)
            return f"{100 * m:.1f}% | {100 * worst:+.1f}%"
        yield f"| {label} | {schedule} | {pass_} | {mask} | {len(eb)} | {fmt(eb)} | {fmt(ea)} |"


def main():
    print("| runs | schedule | pass | mask | kernels | median \\|err\\| before | max before | "
          "median after | max after |")
    print("|---|---|---|---|---|---|---|---|---|")
    for arg in sys.argv[1:]:
        label, files = arg.split("=", 1)
        before_file, after_file = files.split(",")
        before, after = json.load(open(before_file)), json.load(open(after_file))
        if len(before) != len(after):
            print(f"{label}: {before_file} and {after_file} hold different runs", file=sys.stderr)
            return 2
        for line in rows(label, before, after):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
