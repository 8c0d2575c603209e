#!/usr/bin/env python3
"""scripts/l2-accuracy.py on its rows with GQA or causal problems only (37 of 68), from the repo root:

  results/fast-dirty-2026-12-07/l2-accuracy-slice.py build/iosim
"""
import importlib.util
import sys

spec = importlib.util.spec_from_file_location("acc", "scripts/l2-accuracy.py")
acc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(acc)
full = acc.grid
acc.grid = lambda quick: [p for p in full(False) if p[3] != p[4] or p[8]]  # kv_heads ≠ heads, or causal
sys.argv = ["l2-accuracy.py", "--iosim", sys.argv[1]]
sys.exit(acc.main())
