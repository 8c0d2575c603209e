"""The fast replay's round skip on a long causal head, held within 1% of --l2 exact.

usage: long_head.py IOSIM [HEADS]   (tests/CMakeLists.txt passes 4)

A grouped-query causal forward as long, in waves per head and in K/V beside the L2, as the h200's
4-on-1 n = 131072 (5 waves a head, K/V 1.07 times the L2), on a quarter of an h200: 33 SMs, 15 MiB of
L2 (the rest of configs/h200.yaml as it is), n = 32768, so that the exact replay takes seconds. Fails
if the skip no longer skips there (--l2-skip-rounds's counters equal --no-l2-skip-rounds's), or if a
counter of the --l2-skip-rounds run, cold or warm, is more than 1% off the exact run's (errors as scripts/l2-accuracy.py
computes them).
"""
import json
import os
import subprocess
import sys
import tempfile

from compare import ROOT, check

# configs/h200.yaml's lines changed, and their quarter
QUARTER = {"  count: 132 ": "  count: 33 ", "  size_bytes: 62914560 ": "  size_bytes: 15728640 "}


def quarter_config(path):
    with open(os.path.join(ROOT, "configs", "h200.yaml")) as f:
        text = f.read()
    for old, new in QUARTER.items():
        if text.count(old) != 1:
            sys.exit(f"configs/h200.yaml: '{old.strip()}' is not on exactly one line")
        text = text.replace(old, new)
    with open(path, "w") as f:
        f.write(text)


def predict(iosim, config, heads, *extra):
    cmd = [iosim, "-c", config, "--heads", str(heads), "--kv-heads", "1", "--n", "32768", "--d", "128", "--causal",
           "--schedule", "flash2", "--pass", "fwd", "--predict", "-f", "json", *extra]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)["runs"][0]["schedules"][0]["predicted"]


def main():
    iosim = sys.argv[1]
    heads = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    with tempfile.TemporaryDirectory() as tmp:
        config = os.path.join(tmp, "h200-quarter.yaml")
        quarter_config(config)
        fast = predict(iosim, config, heads, "--l2-skip-rounds")
        replayed = predict(iosim, config, heads, "--no-l2-skip-rounds")
        exact = predict(iosim, config, heads, "--l2", "exact")
    check(fast, replayed, exact, 0.01, "--l2 exact")


if __name__ == "__main__":
    main()
