#!/usr/bin/env python3
"""Fast against exact, every counter as scripts/l2-accuracy.py takes it (and each over its own exact value):

  cmp.py 32,28 TAG...   (reads $OUTDIR/TAG-fast-H.json against $OUTDIR/br-exact-H.json; run from the repo root)
"""
import importlib.util
import json
import os
import sys

spec = importlib.util.spec_from_file_location("acc", "scripts/l2-accuracy.py")
acc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(acc)
out = os.environ.get("OUTDIR", "/tmp/gq2")


def load(f):
    return json.load(open(f))["runs"][0]["schedules"][0]["predicted"]


for tag in sys.argv[2:]:
    for h in sys.argv[1].split(","):
        fa, ex = load(f"{out}/{tag}-fast-{h}.json"), load(f"{out}/br-exact-{h}.json")
        worst = (0, "")
        rows = []
        for (key, name, v, scale), (_, _, e, _) in zip(acc.values(fa), acc.values(ex)):
            err = acc.error(v, e, scale)
            own = (v - e) / e if e else 0
            rows.append(f"{name.split('.')[0]}.{key}: {100 * err:.3f}% (own {100 * own:+.3f}%)")
            worst = max(worst, (err, name))
        print(tag, h, "heads", fa["cold"]["kernels"][0]["heads_replayed"], "stride", fa["cold"]["l2_sample_stride"],
              f"worst {100 * worst[0]:.3f}% {worst[1]}")
        for r in rows:
            print("   ", r)
