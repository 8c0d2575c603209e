"""Many compiled-kernel records in one process: what `iosim --kernels triton` runs (src/cli/triton_records.cpp).

    python3 -m iosim.triton.batch [--jobs N] < configs.json

reads a JSON list of configs (config.Config's fields: kernel, block_m, block_n, head_dim, causal,
num_warps, num_stages, dtype, arch) and prints a JSON list of their records (family.py), in the same
order. Records already in the disk cache are read, without importing triton; the others are compiled
in parallel, one process a config (Triton's compilation holds the GIL), at most --jobs at once
(default: the CPUs this process may use), and their cubins then disassembled together, one nvdisasm
for all (sass.disassemble_many). A config that does not compile gives its record with `error` set;
the exit status is 0 whenever every record was produced.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor

from . import sass
from .config import Config
from .family import cache_dir, cache_key, compiled, finish, store, triton_fingerprint


def _cached(config: Config, fingerprint: str) -> dict | None:
    path = cache_dir() / f"{cache_key(config, fingerprint)}.json"
    return json.loads(path.read_text()) if path.is_file() else None


def records(configs: list[dict], jobs: int | None = None) -> list[dict]:
    """The record of every config, cached ones read, the rest compiled `jobs` at a time."""
    parsed = [Config(**c) for c in configs]
    fingerprint = triton_fingerprint()
    out: list[dict | None] = [_cached(c, fingerprint) for c in parsed]
    # Largest tiles first: they take the longest to compile, so the pool ends on short ones.
    missing = sorted((i for i, r in enumerate(out) if r is None),
                     key=lambda i: -parsed[i].block_m * parsed[i].block_n * parsed[i].head_dim)
    if missing:
        # Triton imported here, once: the pool's workers (forked) start with it.
        from . import compile  # noqa: F401
        jobs = max(1, min(jobs or len(os.sched_getaffinity(0)), len(missing)))
        dicts = [parsed[i].as_dict() for i in missing]
        if jobs == 1:
            stages = [compiled(d) for d in dicts]
        else:
            with ProcessPoolExecutor(max_workers=jobs) as pool:
                stages = list(pool.map(compiled, dicts))
        # One disassembler for every cubin of an arch: its start-up is most of its time (sass.py).
        done = [(i, record, cubin) for i, (record, cubin) in zip(missing, stages) if cubin is not None]
        for arch in sorted({parsed[i].arch for i, _, _ in done}):
            ones = [(i, record, cubin) for i, record, cubin in done if parsed[i].arch == arch]
            for (i, record, _), text in zip(ones, sass.disassemble_many([c for _, _, c in ones], arch)):
                finish(parsed[i], record, text)
        for i, (record, _) in zip(missing, stages):
            store(parsed[i], record, fingerprint)
            out[i] = record
    return [r for r in out if r is not None]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m iosim.triton.batch", description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=None, help="compilations at once (default: the usable CPUs)")
    args = ap.parse_args(argv)
    try:
        configs = json.load(sys.stdin)
    except json.JSONDecodeError as exc:
        print(f"iosim.triton.batch: the configs on stdin are not JSON: {exc}", file=sys.stderr)
        return 2
    json.dump(records(configs, args.jobs), sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
