#!/usr/bin/env python3
"""merge.py OUT PART...: today's step-mix table with the flash1 rows of c44b366's part tables (derive_old.py)
in place of today's same variants, for an iosim built with -DIOSIM_STEP_TABLES=OUT.  Run from the repository
root."""
import importlib.util
import sys

spec = importlib.util.spec_from_file_location("ssm", "scripts/sass-step-mix.py")
ssm = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ssm)
rows = {tuple(r[k] for k in ssm.KEY): r for r in ssm.read_table("cuda/kernels/step-mix-sm90.csv")}
replaced = 0
for part in sys.argv[2:]:
    for r in ssm.read_table(part):
        key = tuple(r[k] for k in ssm.KEY)
        if r["kernel"].startswith("flash1"):
            replaced += key in rows
            rows[key] = r
ssm.write_table(sys.argv[1], list(rows.values()), 90, "13.0 (V13.0.88); flash1 rows from c44b366's sources")
print(replaced, "rows replaced")
