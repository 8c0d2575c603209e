#!/usr/bin/env python3
"""`iosim tiles --kernels triton` two ways: the records of two Python trees compared, and whole-process
cold and cached times of two drivers A/B in turn.

  bench/triton_ab.py records OLD_PYTHONPATH NEW_PYTHONPATH [--d 64] [--pass fwd|bwd] [--causal]
                     [--old-cache DIR] [--new-cache DIR]
      Every config of the menu (BLOCK_M, BLOCK_N in {32,64,128,256}, warps {4,8}, stages {2,3}; the
      backward's three kernels as src/cli/triton_records.h's triton_pass_configs makes them) through
      `python3 -m iosim.triton.batch` once with each PYTHONPATH (each with its own IOSIM_CACHE_DIR: a
      fresh one unless given, so every record is compiled), then every record compared field by field.
      Exit status 1 on any difference.

  bench/triton_ab.py time IOSIM OLD_PYTHONPATH NEW_PYTHONPATH [-n RUNS] [--cached-runs N] [-- ARGS...]
      IOSIM run with IOSIM_PYTHON a wrapper that puts OLD_PYTHONPATH (then NEW_PYTHONPATH) first on the
      path, so the same binary drives each tree's iosim.triton: cold runs (an empty IOSIM_CACHE_DIR each)
      A B A B ..., then cached runs (the cache of the last cold run of each) A B A B ... Prints each run's
      wall and CPU (user + system of the process and every child it waited for: the compiler workers,
      ptxas, nvdisasm, from wait4) and the medians. ARGS default to
      `tiles -c h100 --kernels triton --batch 16 --heads 16 --n 1024 --d 64`.

A PYTHONPATH here is a folder holding the iosim package with its compiled _iosim module (a build's
python/ folder, or a copy of one whose triton/ is another tree's).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

SIZES = (32, 64, 128, 256)
DEFAULT_ARGS = ["tiles", "-c", "h100", "--kernels", "triton", "--batch", "16", "--heads", "16", "--n", "1024",
                "--d", "64"]


def menu(d: int, pass_: str, causal: bool) -> list[dict]:
    out, seen = [], set()
    for bm in SIZES:
        for bn in SIZES:
            for w in (4, 8):
                for st in (2, 3):
                    c = dict(kernel="attn_fwd", block_m=bm, block_n=bn, head_dim=d, causal=causal, num_warps=w,
                             num_stages=st, dtype="fp16", arch=90)
                    if pass_ == "fwd":
                        ones = [c]
                    else:
                        ones = [dict(c, kernel="attn_bwd_preprocess", block_n=bm, causal=False, num_warps=4,
                                     num_stages=3), dict(c, kernel="attn_bwd_dkdv"), dict(c, kernel="attn_bwd_dq")]
                    for one in ones:
                        key = json.dumps(one, sort_keys=True)
                        if key not in seen:
                            seen.add(key)
                            out.append(one)
    return out


def batch(pythonpath: str, cache: str, configs: list[dict]) -> tuple[list[dict], float]:
    env = dict(os.environ, PYTHONPATH=pythonpath, IOSIM_CACHE_DIR=cache)
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "iosim.triton.batch"], input=json.dumps(configs), env=env,
                       capture_output=True, text=True, check=True)
    return json.loads(p.stdout), time.perf_counter() - t


def cmd_records(o) -> int:
    configs = menu(o.d, o.pass_, o.causal)
    with tempfile.TemporaryDirectory() as tmp:
        old, t_old = batch(o.old, o.old_cache or os.path.join(tmp, "old"), configs)
        new, t_new = batch(o.new, o.new_cache or os.path.join(tmp, "new"), configs)
    bad = 0
    for c, a, b in zip(configs, old, new):
        if a != b:
            bad += 1
            keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
            print(f"differs: {c} fields {keys}")
            for k in keys[:3]:
                print(f"  {k}: old {str(a.get(k))[:200]!r}\n  {k}: new {str(b.get(k))[:200]!r}")
    errors = sum(1 for r in new if r["error"])
    print(f"{len(configs)} configs (d={o.d} {o.pass_}{' causal' if o.causal else ''}; {errors} refused), "
          f"{len(old)} and {len(new)} records, {bad} differ; old {t_old:.1f} s, new {t_new:.1f} s wall")
    return 1 if bad or len(old) != len(new) or len(old) != len(configs) else 0


def one(cmd: list[str], env: dict) -> tuple[float, float]:
    t = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    err = p.stderr.read().decode()
    p.stderr.close()
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {p.returncode}: {err[-400:]}")
    return wall, ru.ru_utime + ru.ru_stime


def cmd_time(o, args: list[str]) -> int:
    tmp = tempfile.mkdtemp(prefix="triton-ab-")
    wrappers = {}
    for k, path in (("A", o.old), ("B", o.new)):
        w = os.path.join(tmp, f"python-{k}")
        with open(w, "w") as f:
            f.write(f'#!/bin/sh\nPYTHONPATH="{path}${{PYTHONPATH:+:$PYTHONPATH}}" exec {sys.executable} "$@"\n')
        os.chmod(w, 0o755)
        wrappers[k] = w
    runs = {(k, m): [] for k in "AB" for m in ("cold", "cached")}
    last_cache = {}
    cmd = [o.iosim] + args
    for i in range(o.n):
        for k in "AB":
            cache = os.path.join(tmp, f"cache-{k}-{i}")
            env = dict(os.environ, IOSIM_PYTHON=wrappers[k], IOSIM_CACHE_DIR=cache)
            runs[(k, "cold")].append(one(cmd, env))
            last_cache[k] = cache
            print(f"cold   {k} run {i}: {runs[(k, 'cold')][-1][0]:.1f} s wall, {runs[(k, 'cold')][-1][1]:.1f} s CPU, "
                  f"load {os.getloadavg()[0]:.1f}", flush=True)
    for i in range(o.cached_runs):
        for k in "AB":
            env = dict(os.environ, IOSIM_PYTHON=wrappers[k], IOSIM_CACHE_DIR=last_cache[k])
            runs[(k, "cached")].append(one(cmd, env))
            print(f"cached {k} run {i}: {runs[(k, 'cached')][-1][0]:.2f} s wall, "
                  f"{runs[(k, 'cached')][-1][1]:.2f} s CPU, load {os.getloadavg()[0]:.1f}", flush=True)
    print(f"args: {' '.join(args)}; A = {o.old}, B = {o.new}; runs alternated; caches under {tmp}")
    for m in ("cold", "cached"):
        for k in "AB":
            r = runs[(k, m)]
            if r:
                wall, cpu = [x[0] for x in r], [x[1] for x in r]
                print(f"{m:6} {k}: wall median {statistics.median(wall):.2f} s ({min(wall):.2f}-{max(wall):.2f}), "
                      f"CPU median {statistics.median(cpu):.2f} s ({min(cpu):.2f}-{max(cpu):.2f}), {len(r)} runs")
    return 0


def main() -> int:
    argv = sys.argv[1:]
    rest = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("records")
    r.add_argument("old")
    r.add_argument("new")
    r.add_argument("--d", type=int, default=64)
    r.add_argument("--pass", dest="pass_", choices=("fwd", "bwd"), default="fwd")
    r.add_argument("--causal", action="store_true")
    r.add_argument("--old-cache")
    r.add_argument("--new-cache")
    t = sub.add_parser("time")
    t.add_argument("iosim")
    t.add_argument("old")
    t.add_argument("new")
    t.add_argument("-n", type=int, default=3, help="cold runs of each (default 3)")
    t.add_argument("--cached-runs", type=int, default=5, help="cached runs of each (default 5)")
    o = ap.parse_args(argv)
    return cmd_records(o) if o.cmd == "records" else cmd_time(o, rest or DEFAULT_ARGS)


if __name__ == "__main__":
    sys.exit(main())
