"""What the round-skip tests share: scripts/l2-accuracy.py's counters and errors, and the check that a
run with --l2-skip-rounds skipped and stays within a limit of a reference run on every counter."""
import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _accuracy():
    spec = importlib.util.spec_from_file_location("l2_accuracy", os.path.join(ROOT, "scripts", "l2-accuracy.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def check(skipped, replayed, reference, limit, against):
    """Exits with a line unless `skipped` (a --predict's "predicted", --l2-skip-rounds) differs from
    `replayed` (--no-l2-skip-rounds: it skipped something) and every counter, cold or warm, is within
    `limit` (relative, as scripts/l2-accuracy.py computes errors) of `reference`, named `against`."""
    acc = _accuracy()
    got = {name: (v, s) for _, name, v, s in acc.values(skipped)}
    if got == {name: (v, s) for _, name, v, s in acc.values(replayed)}:
        sys.exit("the fast replay skipped no round (its counters equal --no-l2-skip-rounds's)")
    worst = ("", 0.0)
    for _, name, want, scale in acc.values(reference):
        e = acc.error(got[name][0], want, scale)
        print(f"{name}: skip {got[name][0]} {against} {want} error {100 * e:.3f}%")
        worst = max(worst, (name, e), key=lambda w: w[1])
    if worst[1] > limit:
        sys.exit(f"{worst[0]} is {100 * worst[1]:.2f}% off {against} (more than {100 * limit:g}%)")
    print(f"worst {100 * worst[1]:.3f}% ({worst[0]})")
