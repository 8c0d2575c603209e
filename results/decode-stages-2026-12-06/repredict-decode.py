#!/usr/bin/env python3
"""Re-predict the committed H100 decoding runs' cold times with the stages each variant ran.

The runs of results/h100-2026-12-06e, -06g, -06h and -06i label every decode kernel with one stage (the
model's label then). Where `validate` ran the lean menu's three variants of one problem, they are, in
order, its 3-, 1- and 2-stage kernels (cuda/kernels/menu.csv); a problem run once ran the first (3).

  results/decode-stages-2026-12-06/repredict-decode.py build/iosim > h100-after.txt
"""
import collections
import glob
import importlib.util
import json
import statistics
import subprocess
import sys

spec = importlib.util.spec_from_file_location("tv", "scripts/time-validation.py")
tv = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tv)

MENU_ORDER = [3, 1, 2]


def main(iosim):
    out = []
    for f in sorted(glob.glob("results/h100-2026-12-06[eghi]/validation-*.json")):
        groups = collections.OrderedDict()
        for r in json.load(open(f)).get("runs", []):
            if r.get("schedule", "").startswith("flashdecode"):
                key = (r["schedule"], json.dumps(r["problem"], sort_keys=True))
                groups.setdefault(key, []).append(r)
        for (schedule, _), runs in groups.items():
            stages = MENU_ORDER if len(runs) == 3 else MENU_ORDER[:1]
            for st, r in zip(stages, runs):
                tile = dict(r["tile"], stages=st)
                cmd = [iosim, "--config", "configs/h100.yaml", "--schedule", schedule, "--pass", "fwd",
                       *tv.problem_flags(r["problem"]), *tv.kernel_flags(tile), "--predict", "--format", "json"]
                done = subprocess.run(cmd, capture_output=True, text=True, check=True)
                pred = json.loads(done.stdout)["runs"][0]["schedules"][0]["predicted"]["cold"]["time_ms"]
                meas = next(x for x in r["rows"] if x["quantity"] == "time, cold L2")["measured"]
                p = r["problem"]
                out.append((f.split("/")[1], schedule, p.get("window", 0), p.get("page_size", 0), p["batch"],
                            p["n_kv"], st, pred, meas))
    for o in out:
        print(o[:7], "pred %.4f meas %.4f err %+.1f%%" % (o[7], o[8], 100 * (o[8] - o[7]) / o[8]))
    err = [abs((o[8] - o[7]) / o[8]) for o in out]
    print("median |err| %.1f%%  n=%d" % (100 * statistics.median(err), len(err)))
    for name, windowed in (("window", True), ("no window", False)):
        e = [(o[8] - o[7]) / o[8] for o in out if (o[2] > 0) == windowed]
        print(name, "median |err| %.1f%% signed median %+.1f%% n=%d" % (
            100 * statistics.median(map(abs, e)), 100 * statistics.median(e), len(e)))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/iosim")
