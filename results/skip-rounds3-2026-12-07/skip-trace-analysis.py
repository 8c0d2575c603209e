"""Per-skip error of a debug trace (debug-trace.patch): the trapezoid against the replay without jumps.

usage: skip-trace-analysis.py NOJUMP.s2 SKIP.s2 (one replay of each, the lines of the stride-16 cold run)
"""
import bisect
import statistics
import sys


def load(p):
    W, ev = [], []
    for line in open(p):
        t = line.split()
        if t[0] == "W":
            W.append((int(t[1]), float(t[3]), float(t[4]), float(t[5]), int(t[6])))
        elif t[0] in "JRC":
            ev.append((t[0], [int(x) for x in t[1:]]))
    return W, ev


nj, _ = load(sys.argv[1])
on, ev = load(sys.argv[2])
# true trajectory: window end round -> (read rate, fabric rate, asked)
ends = [w[0] for w in nj]


def true_over(a, b, col):  # reads over rounds (a, b] from nj windows (ends at multiples of 8 since last change)
    s = 0.0
    asked = 0.0
    for e, rr, fr, ask, _ in nj:
        lo, hi = e - 8, e
        ov = max(0, min(b, hi) - max(a, lo))
        if ov:
            f = ov / 8
            s += f * ask * (rr if col == 0 else fr)
            asked += f * ask
    return s, asked


def near(r):
    i = min(range(len(nj)), key=lambda k: abs(nj[k][0] - r))
    return nj[i]


# walk events: J at round r0 (skip r0..r0+R), R at r1 (rewarm end), next W with owes=1 is 'after'
onW = {w[0]: w for w in on}
tot_true = [0, 0]
tot_est = [0, 0]
tot_before = [0, 0]
tot_nj = [0, 0]
i = 0
jumps = []
for k, (t, v) in enumerate(ev):
    if t == "J":
        jumps.append([v[0], v[1], v[2], None])
    if t == "R":
        jumps[-1][3] = v[0]
# before window: the on window ending at r0; after: first on window after r1
onends = [w[0] for w in on]
rows = []
for r0, R, rw, r1 in jumps:
    if r1 is None:
        continue
    b = onW.get(r0)
    j = bisect.bisect_right(onends, r1)
    a = on[j] if j < len(on) and on[j][4] == 1 else None
    if b is None or a is None:
        continue
    for c in (0, 1):
        tr, asked = true_over(r0, r1, c)
        est = asked * ((b[1 + c] + a[1 + c]) / 2)
        tot_true[c] += tr
        tot_est[c] += est
        tot_before[c] += asked * b[1 + c]
    na = near(a[0])
    nb = near(b[0])
    rows.append((r0, R, r1 - r0 - R, b[1], nb[1], a[1], na[1]))
tot_all = [sum(w[3] * w[1] for w in nj), sum(w[3] * w[2] for w in nj)]
print("skips", len(rows))
for c, name in ((0, "dram"), (1, "fabric")):
    print(
        name,
        "true",
        tot_true[c],
        "trap",
        tot_est[c],
        "before-only",
        tot_before[c],
        "diff/all %.3f%%" % (100 * (tot_est[c] - tot_true[c]) / tot_all[c]),
    )
# bias of after windows (stale L2?) and before windows vs nj at same round

print(
    "after/nj mean",
    statistics.mean(r[5] / r[6] for r in rows if r[6] > 0),
    "before/nj mean",
    statistics.mean(r[3] / r[4] for r in rows if r[4] > 0),
)
for r in rows[:: max(1, len(rows) // 25)]:
    print(r)
print("--- split: skip part vs rewarm part, and worst intervals")
errs = []
sk = [0, 0]
rw = [0, 0]
for r0, R, rw_, r1 in jumps:
    if r1 is None:
        continue
    b = onW.get(r0)
    j = bisect.bisect_right(onends, r1)
    a = on[j] if j < len(on) and on[j][4] == 1 else None
    if b is None or a is None:
        continue
    m = (b[1] + a[1]) / 2
    t1, a1 = true_over(r0, r0 + R, 0)
    t2, a2 = true_over(r0 + R, r1, 0)
    sk[0] += a1 * m - t1
    rw[0] += a2 * m - t2
    errs.append((a1 * m - t1 + a2 * m - t2, r0, R, r1 - r0 - R, b[1], a[1]))
print("skip part err %.3f%%  rewarm part err %.3f%%" % (100 * sk[0] / tot_all[0], 100 * rw[0] / tot_all[0]))
errs.sort(key=lambda e: -abs(e[0]))
for e in errs[:15]:
    print("%.3f%%" % (100 * e[0] / tot_all[0]), e[1:])
