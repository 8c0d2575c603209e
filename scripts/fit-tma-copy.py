#!/usr/bin/env python3
"""The SM's TMA cycles per copy (a config's `pipeline.tma_copy_cycles`), fitted to one TMA-bound kernel.

A Hopper kernel's TMA unit works through its copies one after another, however few rows each box holds:
flash3's forward over pages smaller than its K/V tile copies each tile as 16-row boxes (32 copies a step
at d = 128 against 4 unpaged) and runs at the TMA unit's pace, not its tensor cores'. The SM model
prices a step's copies at `pipeline.tma_copy_cycles` each (sm_model.cpp); calibrate has no microbenchmark
for it, so this script finds it: the one value at which the model's cold time equals the measured one
for the fit run (bisection: the predicted time does not fall as the figure grows), then prints every
other run of the files at that value, held out.

  scripts/fit-tma-copy.py results/h100-2026-12-06k/validation-*flash3-fwd*.json --config configs/h100.yaml \\
      --fit page_size=16,page_order=contiguous,n=8192 [--iosim build/iosim]

The config is copied, with the figure set, into a temporary directory beside copies of its peers (its
corrected_by: configs), so the repository's configs are not touched.
"""
import argparse
import importlib.util
import json
import os
import re
import shutil
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("time_validation", os.path.join(HERE, "time-validation.py"))
tv = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tv)


def with_figure(config, directory, value):
    """A copy of `config` in `directory` whose pipeline: section sets tma_copy_cycles to `value`."""
    lines = open(config).read().split("\n")
    out, in_pipeline, done = [], False, False
    for text in lines:
        if re.match(r"\S", text):
            if in_pipeline and not done:
                out.append(f"  tma_copy_cycles: {value}")
                done = True
            in_pipeline = text.startswith("pipeline:")
        if in_pipeline and re.match(r"\s+tma_copy_cycles:", text):
            continue
        out.append(text)
    if in_pipeline and not done:
        out.append(f"  tma_copy_cycles: {value}")
    path = os.path.join(directory, os.path.basename(config))
    with open(path, "w") as f:
        f.write("\n".join(out))
    return path


def fail(message):
    """One line naming the problem on stderr, exit 2 (the project's bad-input convention)."""
    print(f"fit-tma-copy: {message}", file=sys.stderr)
    sys.exit(2)


def matches(run, selector):
    for key, want in selector.items():
        have = run["problem"].get(key)
        if str(have) != want:
            return False
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", help="validation JSON files (iosim validate)")
    ap.add_argument("--config", required=True)
    ap.add_argument("--fit", required=True, help="key=value,... of the fit run's problem (exactly one run)")
    ap.add_argument("--iosim", default="build/iosim")
    args = ap.parse_args()
    try:
        selector = dict(kv.split("=", 1) for kv in args.fit.split(","))
    except ValueError:
        fail(f"--fit {args.fit!r}: expected key=value,...")
    runs = []
    for path in args.files:
        try:
            runs += [r for r in json.load(open(path))["runs"] if tv.measured_ms(r)]
        except (OSError, ValueError, KeyError) as e:
            fail(f"{path}: not a validation JSON ({e})")
    fit = [r for r in runs if matches(r, selector)]
    if len(fit) != 1:
        fail(f"--fit {args.fit} selects {len(fit)} runs, not one")
    fit = fit[0]
    target = tv.measured_ms(fit)
    with tempfile.TemporaryDirectory() as tmp:
        config_dir = os.path.dirname(os.path.abspath(args.config))
        for name in os.listdir(config_dir):
            if name.endswith(".yaml"):
                shutil.copy(os.path.join(config_dir, name), tmp)

        def predicted(value, run):
            config = with_figure(args.config, tmp, value)
            p = tv.predict(args.iosim, config, run)
            if "refused" in p:
                fail(f"the model refuses a run: {p['refused']}")
            return p["cold"]["time_ms"]

        lo, hi = 0.1, 4000.0
        if predicted(hi, fit) < target:
            fail(f"even {hi} cycles a copy predicts less than the measured {target:.4g} ms")
        if predicted(lo, fit) > target:
            fail("the fit run is slower in the model without TMA costs: not TMA-bound")
        while hi - lo > 0.5:
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if predicted(mid, fit) < target else (lo, mid)
        value = round((lo + hi) / 2)
        print(f"tma_copy_cycles: {value}  (fit run: {fit['problem']}, measured {target:.4g} ms)")
        print("\n| run | measured ms | predicted ms | error |\n|---|---|---|---|")
        errors = []
        for run in runs:
            m, p = tv.measured_ms(run), predicted(value, run)
            e = (m - p) / m
            held = run is not fit
            if held:
                errors.append(abs(e))
            q = run["problem"]
            label = (f"{q['batch']}×{q['heads']} n={q['n']} d={q['d']} page={q.get('page_size') or '-'} "
                     f"{q.get('page_order') or ''}{' (fit)' if not held else ''}")
            print(f"| {label} | {m:.4g} | {p:.4g} | {100 * e:+.1f}% |")
        if errors:
            print(f"\nheld out: {len(errors)} runs, median |error| {100 * statistics.median(errors):.1f}%, "
                  f"largest {100 * max(errors):.1f}%")


if __name__ == "__main__":
    main()
