#!/usr/bin/env python3
"""step_now.py: the steps of validate --quick's two flash2 forward kernels (fp16, 4 warps, 2 stages: d 128
64 x 64 and d 64 128 x 64) as this checkout's sources compile them, both instantiations (contiguous and
paged), with their registers: flash1-sass-today-2026-12-07/flash2_step_then_now.py's method (its
generate_kernels.py --full file cut to the one row, nvcc -O3 -DNDEBUG -std=c++20 -arch=sm_90 -cubin -lineinfo
-Xptxas -v, sass-step-mix.py derive()) on the working tree instead of a commit's."""
import glob
import importlib.util
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "results", "flash1-sass-today-2026-12-07"))
from flash2_step_then_now import KERNELS, NVCC, one_row  # noqa: E402


def main():
    spec = importlib.util.spec_from_file_location("ssm", os.path.join(REPO, "scripts", "sass-step-mix.py"))
    ssm = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ssm)
    menu = os.path.join(REPO, "cuda", "kernels", "menu.csv")
    script = os.path.join(REPO, "cuda", "kernels", "generate_kernels.py")
    print("| build | d | tile | instantiation | registers | step | total | by pipe |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as gen:
        os.makedirs(os.path.join(gen, "include", "iosim_generated"))
        subprocess.run([sys.executable, script, menu, "--model",
                        os.path.join(gen, "include", "iosim_generated", "kernel_menu.h")], check=True)
        subprocess.run([sys.executable, script, menu, "--cuda", gen, "--full"], check=True)
        for d, tile in KERNELS:
            [src] = glob.glob(os.path.join(gen, "inst", "**", f"flash2_fwd_d{d}_fp16_w4_s2.cu"), recursive=True)
            cut = os.path.join(gen, f"one_d{d}.cu")
            open(cut, "w").write(one_row(src, tile))
            cubin = cut[:-3] + ".cubin"
            ptxas = subprocess.run(["nice", NVCC, "-O3", "-DNDEBUG", "-std=c++20", "-arch=sm_90", "-cubin", "-lineinfo",
                                    "-Xptxas", "-v", f"-I{REPO}", f"-I{gen}", f"-I{os.path.join(gen, 'include')}",
                                    "-o", cubin, cut], check=True, capture_output=True, text=True).stderr
            # ptxas -v: one "Compiling entry function '<mangled>'" block per kernel, its "Used N registers" after.
            regs = {}
            for block in ptxas.split("Compiling entry function")[1:]:
                name = re.search(r"'(\w+)'", block).group(1)
                if "flash2_fwd_kernel" in name:
                    used = re.search(r"Used (\d+) registers", block).group(1)
                    regs["paged" if "ELb1E" in name else "contiguous"] = used
            for r in ssm.derive(ssm.nvdisasm_gi(cubin), ssm.regions(ssm.SOURCE.read_text()), 90):
                inst = "paged" if r["step"].startswith("paged") else "contiguous"
                pipes = " ".join(f"{k} {r[k]}" for k in ("tensor", "mufu", "alu", "uniform", "shared", "global",
                                                         "shuffle", "barrier", "other"))
                print(f"| worktree | {d} | {r['br']}x{r['bc']} | {inst} | {regs.get(inst)} | {r['step']} "
                      f"| {r['total']} | {pipes} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
