#!/usr/bin/env python3
"""flash2_step_then_now.py [COMMIT ...]: the unmasked K/V step of validate --quick's two flash2 forward kernels
(fp16, 4 warps, 2 stages: d 128 64 x 64 and d 64 128 x 64) as each COMMIT's sources compile them (default:
169963b, the kernels of tests/data/h100-validate-quick.json, and 8eb5504, those of -2026-12-07.json), and
their registers. Each commit's tree (`git archive`), its generate_kernels.py --full instantiation file cut
to the one row, nvcc -O3 -DNDEBUG -std=c++20 -arch=sm_90 -cubin -lineinfo (as scripts/sass-step-mix.py
compiles), and this checkout's sass-step-mix.py derive() with its ROOT the commit's tree, so that it reads
that commit's flash2_fwd.cuh."""
import glob
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
NVCC = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc")
KERNELS = (("128", "64, 64"), ("64", "128, 64"))  # (d, "B_r, B_c") of the menu_entry line


def one_row(src, tile):
    """The instantiation file cut to its menu_entry function whose template arguments have this tile."""
    text = open(src).read()
    head, _, rest = text.partition("// menu.csv:")
    funcs = ["// menu.csv:" + f for f in rest.split("// menu.csv:")]
    keep = [f for f in funcs if re.search(rf", {tile}, 4, 2>", f)]
    if len(keep) != 1:
        sys.exit(f"{src}: {len(keep)} functions of tile {tile}, not 1")
    body = keep[0].split("}  // namespace")[0]
    return head + body + "}  // namespace iosim::gpu::detail\n"


def steps(commit, work):
    tree = os.path.join(work, commit)
    os.makedirs(tree)
    archive = subprocess.run(["git", "-C", REPO, "archive", commit], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", tree], input=archive, check=True)
    gen = os.path.join(tree, "gen")
    os.makedirs(os.path.join(gen, "include", "iosim_generated"))
    menu = os.path.join(tree, "cuda", "kernels", "menu.csv")
    script = os.path.join(tree, "cuda", "kernels", "generate_kernels.py")
    subprocess.run([sys.executable, script, menu, "--model",
                    os.path.join(gen, "include", "iosim_generated", "kernel_menu.h")], check=True)
    subprocess.run([sys.executable, script, menu, "--cuda", gen, "--full"], check=True)
    # Today's step script and its sass/pipes modules, placed in the commit's tree (its ROOT).
    shutil.copy(os.path.join(REPO, "scripts", "sass-step-mix.py"), os.path.join(tree, "scripts", "ssm_now.py"))
    for f in ("sass.py", "pipes.py"):
        shutil.copy(os.path.join(REPO, "python", "iosim", "triton", f),
                    os.path.join(tree, "python", "iosim", "triton", f))
    spec = importlib.util.spec_from_file_location("ssm_" + commit, os.path.join(tree, "scripts", "ssm_now.py"))
    ssm = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ssm)
    for d, tile in KERNELS:
        [src] = glob.glob(os.path.join(gen, "inst", "**", f"flash2_fwd_d{d}_fp16_w4_s2.cu"), recursive=True)
        cut = os.path.join(gen, f"one_d{d}.cu")
        open(cut, "w").write(one_row(src, tile))
        cubin = cut[:-3] + ".cubin"
        ptxas = subprocess.run(["nice", NVCC, "-O3", "-DNDEBUG", "-std=c++20", "-arch=sm_90", "-cubin", "-lineinfo",
                                "-Xptxas", "-v", f"-I{tree}", f"-I{gen}", f"-I{os.path.join(gen, 'include')}",
                                "-o", cubin, cut], check=True, capture_output=True, text=True).stderr
        regs = re.search(r"Used (\d+) registers", ptxas).group(1)
        for r in ssm.derive(ssm.nvdisasm_gi(cubin), ssm.regions(ssm.SOURCE.read_text()), 90):
            if r["step"] == "unmasked":
                pipes = " ".join(f"{k} {r[k]}" for k in ("tensor", "mufu", "alu", "uniform", "shared", "global",
                                                         "shuffle", "barrier", "other"))
                print(f"| {commit} | {d} | {r['br']}x{r['bc']} | {regs} | {r['total']} | {pipes} |", flush=True)


def main():
    commits = sys.argv[1:] or ["169963b", "8eb5504"]
    print("| commit | d | tile | registers | step | by pipe |\n|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as work:
        for c in commits:
            steps(c, work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
