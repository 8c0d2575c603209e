"""The fast replay's round skip where the head skip counts a steady head for many, held within 0.5% of
the same replay without it.

usage: many_heads.py IOSIM   (tests/CMakeLists.txt)

h200, 32 heads (not grouped), n = 131072, d = 128, causal flash2 forward: the head skip replays heads
0-2 and 31 and counts heads 1 and 2 for 14 heads each, so what a round skip charges to head 1 rather than
the cold head 0 running beside it is counted 15 times (counted at the whole window's rates rather than
each head's, it read +2.1% DRAM). Fails if the skip no longer skips (the counters equal
--no-l2-skip-rounds's), or if a counter, cold or warm, is more than 0.5% off --no-l2-skip-rounds's
(errors as scripts/l2-accuracy.py computes them). The quarter-size h200 of long_head.py does not show it
(its heads' counts agree within 0.02% under either rule).
"""
import json
import subprocess
import sys

from compare import check


def predict(iosim, flag):
    cmd = [iosim, "-c", "h200", "--heads", "32", "--n", "131072", "--d", "128", "--causal", "--schedule", "flash2",
           "--pass", "fwd", "--predict", "-f", "json", flag]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)["runs"][0]["schedules"][0]["predicted"]


def main():
    iosim = sys.argv[1]
    replayed = predict(iosim, "--no-l2-skip-rounds")
    check(predict(iosim, "--l2-skip-rounds"), replayed, replayed, 0.005, "--no-l2-skip-rounds")


if __name__ == "__main__":
    main()
