"""The markdown table of results/l2-analytic-part2-2026-12-07.md from run.sh's outputs: table.py lab.txt lab2.txt
(a problem in a later file replaces its row from an earlier one, in the first file's order)."""

import re
import sys


def rows(text):
    for block in text.split("== ")[1:]:
        head = block.split()
        cfg, n, d, h, kv, c, w, tol = head[:8]
        load = head[head.index("load") + 1]
        num = {}
        for key, pat in {
            "exact": r"exact\s+dram_read (\d+)\s+dram_write (\d+)\s+fabric_read (\d+)\s+cpu_s ([\d.]+)",
            "window": r"window\s+dram_read \d+ \(([-+\d.]+)%\)\s+dram_write \d+ \(([-+\d.]+)%\)\s+dram_all ([-+\d.]+)%"
            r"\s+fabric_read \d+ \(([-+\d.]+)%\)\s+cpu_s ([\d.]+)",
            "mean": r"mean\s+dram_read \d+ \(([-+\d.]+)%\)\s+dram_all ([-+\d.]+)%\s+fabric_read \d+ \(([-+\d.]+)%\)",
            "rounds": r"rounds\s+counted (\d+)\s+rewarm (\d+)\s+skipped (\d+)\s+skips (\d+)",
            "stream": r"stream\s+requests (\d+)",
        }.items():
            m = re.search(pat, block)
            if not m:
                break
            num[key] = m.groups()
        else:
            yield cfg, n, d, f"{h} / {kv}", "yes" if c == "1" else "no", f"{w} / {tol}", load, num


def main():
    print("| config | n | d | heads / kv | causal | W / tol | load | line requests | exact DRAM read / write sectors "
          "| before: read / write / all / fabric | mean: read / all / fabric | rounds counted / rewarm / skipped "
          "| CPU s exact / window | speedup |")
    print("|" + "---|" * 14)
    table = {}
    for path in sys.argv[1:]:
        with open(path) as f:
            for r in rows(f.read()):
                table[r[:6]] = r
    for cfg, n, d, hk, causal, wt, load, x in table.values():
        e, w, m, r = x["exact"], x["window"], x["mean"], x["rounds"]
        speed = float(e[3]) / float(w[4])
        print(f"| {cfg} | {int(n):,} | {d} | {hk} | {causal} | {wt} | {load} | {int(x['stream'][0]):,} "
              f"| {int(e[0]):,} / {int(e[1]):,} | {w[0]}% / {w[1]}% / {w[2]}% / {w[3]}% "
              f"| {m[0]}% / {m[1]}% / {m[2]}% | {r[0]} / {r[1]} / {r[2]} | {e[3]} / {w[4]} | {speed:.1f}× |")


if __name__ == "__main__":
    main()
