#!/usr/bin/env python3
"""No code compares a schedule's name: every consumer asks its registry entry (sim/schedule/registry.h).

Reads the names from the entries of sim/schedule/<folder>/register.cpp and fails, naming file and line,
where a C++ file of sim/, src/, cuda/ or python/ compares a string with one of them (== "flash2", "naive"
!= x, a switch-like chain) or spells one as a case of its own.
"""
import glob
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
names = []
for path in sorted(glob.glob(os.path.join(REPO, "sim/schedule/*/register.cpp"))):
    names += re.findall(r'ScheduleEntry\{\s*(?:\.name = )?"([^"]+)"', open(path, encoding="utf-8").read())
if len(names) < 2:
    sys.exit("no-schedule-name-compare: found no entries in sim/schedule/*/register.cpp")
alt = "|".join(re.escape(n) for n in names)
compare = re.compile(rf'[=!]=\s*"({alt})"|"({alt})"\s*[=!]=|case\s+"({alt})"')
bad = []
for top in ("sim", "src", "cuda", "python"):
    for root, _, files in os.walk(os.path.join(REPO, top)):
        for f in files:
            if not f.endswith((".cpp", ".h", ".cu", ".cuh")):
                continue
            path = os.path.join(root, f)
            for i, line in enumerate(open(path, encoding="utf-8"), 1):
                if compare.search(line):
                    bad.append(f"{os.path.relpath(path, REPO)}:{i}: {line.strip()}")
for b in bad:
    print(b)
print(f"no-schedule-name-compare: {len(bad)} comparisons with the names of {', '.join(names)}")
sys.exit(1 if bad else 0)
