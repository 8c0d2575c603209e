#!/usr/bin/env python3
"""derive_old.py TREE OUT: the flash1 and flash2-backward step rows of c44b366's cubins (compile.sh,
TREE/out/) by branch sassf1's scripts/sass-step-mix.py (its derive_flash1; not on main) copied into TREE
(c44b366's sources: `git archive c44b366`), its ROOT so TREE; the Q loop's line is found by c44b366's
text. One part table a cubin (TREE/out/NAME.csv), then OUT."""
import glob
import importlib.util
import os
import sys
import time

tree, out = sys.argv[1], sys.argv[2]
spec = importlib.util.spec_from_file_location("ssm", f"{tree}/scripts/sass-step-mix.py")
ssm = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ssm)
source_line = ssm.source_line
OLD_LOOP = {"flash1_fwd.cuh": "; i < q_tiles; ++i) {", "flash1_bwd.cuh": "for (int i = first_q; i < q_tiles; ++i) {"}


def old_source_line(text, pattern, source):
    if pattern == "for (int i = first_q; i < end_q; ++i) {":
        pattern = OLD_LOOP[source.name]
    return source_line(text, pattern, source)


ssm.source_line = old_source_line
# The H200 data's variants first (fp16): the backward's counted paths take minutes a file.
order = ["flash1_fwd_d64_fp16", "flash1_fwd_d128_fp16", "flash2_bwd_d64_fp16", "flash1_bwd_d64_fp16",
         "flash1_bwd_d128_fp16"]
names = [os.path.basename(c)[:-6] for c in glob.glob(f"{tree}/out/*.cubin")]
names = [n for n in order if n in names] + sorted(n for n in names if n not in order)
rows = []
for name in names:
    cubin, part = f"{tree}/out/{name}.cubin", f"{tree}/out/{name}.csv"
    if os.path.exists(part):
        rows += ssm.read_table(part)
        continue
    t0 = time.time()
    listing = ssm.nvdisasm_gi(cubin)
    if "flash1" in name:
        got = ssm.derive_flash1(listing, ssm.flash1_regions(), 90)
    else:
        got = ssm.derive_bwd(listing, ssm.bwd_regions(ssm.BWD_SOURCE.read_text()), 90)
    ssm.write_table(part, got, 90, "13.0 (V13.0.88), c44b366's sources")
    rows += got
    print(name, len(got), f"{time.time() - t0:.0f} s", flush=True)
ssm.write_table(out, rows, 90, "13.0 (V13.0.88), c44b366's sources")
print(len(rows), "rows")
