"""A kernel family read from compiled code: `compiled_family(config)` compiles one Triton kernel
variant for the target (compile.py), reads its SASS (sass.py) and returns one JSON-able record:

  {config, kernel, triton_version, target, registers, spills, spill_loads, shared_bytes, num_warps,
   num_stages, loops: [{role, depth, iterations_per_trip, per_iteration: {pipe: n},
   tensor_opcodes_per_iteration: {opcode with its shape: n}, block_barriers_per_iteration, ...}],
   prologue, between, epilogue: {counts, opcodes, tensor_opcodes}, error}

`loops` holds the loops that issue tensor-core products and contain no other loop (the K/V or Q tile
loops), role "unmasked" or "masked" (the causal diagonal), then any enclosing loop, role "outer"
(the backward's loop over the query heads of a group). Counts are warp instructions per warp. A config
that cannot compile gives the same record with `error` the reason and the compiled fields null.

Records are cached as JSON under $IOSIM_CACHE_DIR/triton (default $XDG_CACHE_HOME/iosim/triton, else
~/.cache/iosim/triton), keyed by the sha256 of this package's sources that make a record (KEYED_SOURCES),
the config, the target, and the Triton that compiles it (triton_fingerprint). Reading a cached record
imports no triton: the key is computed without it.

    python3 -m iosim.triton.family --block-m 128 --block-n 64 --warps 4 --stages 3 --d 64 [--causal] [--pass fwd|bwd]
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import sys
from pathlib import Path

from . import pipes, sass
from .config import Config

PASS_KERNELS = {"fwd": ["attn_fwd"], "bwd": ["attn_bwd_preprocess", "attn_bwd_dkdv", "attn_bwd_dq"]}
# The step of each kernel's tile loop: one iteration is one tile of this many rows.
TILE_STEP = {"attn_fwd": "block_n", "attn_bwd_dq": "block_n", "attn_bwd_dkdv": "block_m"}
_MASK_OPS = ("ISETP", "FSEL", "SEL", "FSETP")


def cache_dir() -> Path:
    root = os.environ.get("IOSIM_CACHE_DIR")
    if root:
        return Path(root) / "triton"
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(xdg) / "iosim" / "triton"


def target_name(config: Config) -> str:
    return f"cuda:{config.arch}"


# The modules whose code decides a record: the kernels, how they are compiled (config.py's labels are in
# its refusals), disassembled (batch.py's shared nvdisasm) and read.
KEYED_SOURCES = ("kernels.py", "config.py", "compile.py", "batch.py", "sass.py", "pipes.py", "family.py")
# Environment variables Triton, its MLIR and LLVM passes or ptxas read (TRITON_PTXAS_PATH,
# TRITON_DEFAULT_FP_FUSION, MLIR_ENABLE_..., PTXAS_OPTIONS...): any of these set is part of the key.
_KEYED_ENV_PREFIXES = ("TRITON_", "MLIR_", "LLVM_", "PTXAS_", "DISABLE_PTXAS_")


def triton_fingerprint() -> str:
    """The Triton that compiles, found without importing it: its distribution's version, and the size and
    modification time of its compiler library and of the ptxas it ships (a rebuilt or replaced Triton of
    the same version gives another key), and the environment variables it reads that are set."""
    try:
        version = importlib.metadata.version("triton")
    except importlib.metadata.PackageNotFoundError:
        version = "?"
    parts = [version]
    spec = importlib.util.find_spec("triton")
    for root in (spec.submodule_search_locations or []) if spec else []:
        for rel in ("_C/libtriton.so", "backends/nvidia/bin/ptxas"):
            try:
                st = os.stat(os.path.join(root, rel))
                parts.append(f"{rel} {st.st_size} {st.st_mtime_ns}")
            except OSError:
                parts.append(f"{rel} absent")
    parts += sorted(f"{k}={v}" for k, v in os.environ.items() if k.startswith(_KEYED_ENV_PREFIXES))
    return "\n".join(parts)


def source_text(name: str) -> str:
    """The text of one of this package's modules (KEYED_SOURCES)."""
    return (Path(__file__).parent / name).read_text(encoding="utf-8")


def cache_key(config: Config, fingerprint: str | None = None) -> str:
    """The record's file name in the cache; `fingerprint`, triton_fingerprint() when not given."""
    parts = [source_text(name) for name in KEYED_SOURCES]
    parts += [json.dumps(config.as_dict(), sort_keys=True), fingerprint or triton_fingerprint(),
              target_name(config)]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _iterations_per_trip(config: Config, step: int | None) -> tuple[int, str]:
    """How many tiles one trip covers, from the loop counter's step (sass.counter_step)."""
    tile = getattr(config, TILE_STEP.get(config.kernel, "block_n"))
    if step is not None and step > 0 and step % tile == 0:
        return step // tile, f"counter step {step} = {step // tile} x {tile}"
    if step is not None and 0 < step < 16:   # a normalised trip counter (tiles are at least 16 rows)
        return step, f"trip counter step {step}"
    return 1, f"counter step {step} not a multiple of the tile ({tile}); assumed one tile a trip"


def _loop_record(config, instructions, loop, role, c) -> dict:
    """`loop`'s record; `c`, its loop_counts."""
    if role != "outer":
        per_trip, why = _iterations_per_trip(config, sass.counter_step(instructions, loop))
    else:
        per_trip, why = 1, "one query head a trip"
    per_iteration = {p: n / per_trip if per_trip > 1 else n for p, n in c["by_pipe"].items()}
    tensor = {op: n / per_trip if per_trip > 1 else n for op, n in c["tensor_opcodes"].items()}
    barriers = c["by_opcode"].get("BAR", 0)
    return {"role": role, "depth": loop.depth, "start": f"{loop.start:#06x}", "end": f"{loop.end:#06x}",
            "iterations_per_trip": per_trip, "iterations_per_trip_evidence": why,
            "per_iteration": per_iteration, "tensor_opcodes_per_iteration": tensor,
            "block_barriers_per_iteration": barriers / per_trip if per_trip > 1 else barriers,
            "per_trip_opcodes": c["by_opcode"],
            "instructions_per_trip": sum(c["by_pipe"].values())}


def analyse(config: Config, sass_text: str) -> dict:
    """The loops and the counts outside them, from SASS text (no compilation)."""
    instructions = sass.parse(sass_text)
    loops = sass.find_loops(instructions)
    counts = {id(lp): sass.loop_counts(instructions, lp) for lp in loops}   # each loop's, once
    tiles = [lp for lp in loops if not lp.inner and counts[id(lp)]["by_pipe"]["tensor"] > 0]
    if config.causal and len(tiles) == 2:
        mask_ops = [sum(counts[id(lp)]["by_opcode"].get(op, 0) for op in _MASK_OPS) for lp in tiles]
        masked = tiles[mask_ops.index(max(mask_ops))]
        roles = {id(lp): ("masked" if lp is masked else "unmasked") for lp in tiles}
    elif not config.causal and len(tiles) == 1:
        roles = {id(tiles[0]): "unmasked"}
    else:
        roles = {id(lp): "unknown" for lp in tiles}
    records = [_loop_record(config, instructions, lp, roles[id(lp)], counts[id(lp)]) for lp in tiles]
    records += [_loop_record(config, instructions, lp, "outer", counts[id(lp)]) for lp in loops if lp.inner]
    records += [_loop_record(config, instructions, lp, "other", counts[id(lp)]) for lp in loops
                if not lp.inner and id(lp) not in roles]
    outside = sass.outside_counts(instructions, loops)
    return {"loops": records,
            **{name: {"counts": v["by_pipe"], "opcodes": v["by_opcode"], "tensor_opcodes": v["tensor_opcodes"]}
               for name, v in outside.items()},
            "total_instructions": sum(1 for i in instructions if not sass.is_padding(i))}


def _empty(config: Config, error: str | None) -> dict:
    import triton
    return {"config": config.as_dict(), "kernel": config.kernel, "triton_version": triton.__version__,
            "target": target_name(config), "registers": None, "spills": None, "spill_loads": None,
            "shared_bytes": None, "num_warps": config.num_warps, "num_stages": config.num_stages,
            "loops": [], "prologue": None, "between": None, "epilogue": None, "total_instructions": None,
            "pipes": list(pipes.PIPES), "error": error}


def compiled(config: Config | dict) -> tuple[dict, bytes | None]:
    """The record of `config` but for what its SASS gives (finish() adds that), and its cubin; a config
    that does not compile gives its whole record (`error` set) and no cubin."""
    from .compile import CompileError, compile_config
    if isinstance(config, dict):
        config = Config(**config)
    try:
        compiled = compile_config(config)
    except CompileError as exc:
        return _empty(config, str(exc)), None
    record = _empty(config, None)
    record.update(registers=compiled.registers, spills=compiled.spills, spill_loads=compiled.spill_loads,
                  shared_bytes=compiled.shared_bytes, num_warps=compiled.num_warps,
                  num_stages=compiled.num_stages)
    return record, compiled.cubin


def finish(config: Config, record: dict, sass_text: str) -> dict:
    """`record` (from compiled()) with its loops and counts read from the SASS text of its cubin."""
    record.update(analyse(config, sass_text))
    return record


def build(config: Config) -> dict:
    """The record, computed (no cache)."""
    record, cubin = compiled(config)
    return record if cubin is None else finish(config, record, sass.disassemble(cubin))


def store(config: Config, record: dict, fingerprint: str | None = None) -> None:
    """Writes `record` to the disk cache."""
    path = cache_dir() / f"{cache_key(config, fingerprint)}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(record, indent=1))
    tmp.replace(path)  # atomic: a concurrent reader sees the old file or the whole new one


def compiled_family(config: Config | dict, use_cache: bool = True) -> dict:
    """The record of `config` (a Config or a dict of its fields), from the disk cache when there."""
    if isinstance(config, dict):
        config = Config(**config)
    path = cache_dir() / f"{cache_key(config)}.json"
    if use_cache and path.is_file():
        return json.loads(path.read_text())
    record = build(config)
    if use_cache:
        store(config, record)
    return record


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m iosim.triton.family", description=__doc__.split("\n\n")[0])
    ap.add_argument("--block-m", type=int, default=128)
    ap.add_argument("--block-n", type=int, default=64)
    ap.add_argument("--warps", type=int, default=4)
    ap.add_argument("--stages", type=int, default=3)
    ap.add_argument("--d", type=int, default=64)
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--dtype", choices=["fp16", "bf16"], default="fp16")
    ap.add_argument("--arch", type=int, default=90, help="compute capability of the target (90: sm_90a)")
    ap.add_argument("--pass", dest="pass_", choices=sorted(PASS_KERNELS), default="fwd",
                    help="fwd: attn_fwd; bwd: the preprocess, dK/dV and dQ kernels")
    ap.add_argument("--kernel", choices=[k for ks in PASS_KERNELS.values() for k in ks],
                    help="one kernel instead of a whole pass")
    ap.add_argument("--no-cache", action="store_true")
    args = ap.parse_args(argv)
    kernels = [args.kernel] if args.kernel else PASS_KERNELS[args.pass_]
    out = {}
    for k in kernels:
        cfg = Config(kernel=k, block_m=args.block_m, block_n=args.block_n, head_dim=args.d, causal=args.causal,
                     num_warps=args.warps, num_stages=args.stages, dtype=args.dtype, arch=args.arch)
        out[k] = compiled_family(cfg, use_cache=not args.no_cache)
    print(json.dumps(out[kernels[0]] if len(kernels) == 1 else out, indent=1))
    return 1 if any(r["error"] for r in out.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
