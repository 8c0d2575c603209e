"""Triton autotuning pruned by iosim: `prune` keeps the configs iosim predicts fastest.

    @triton.autotune(configs=[triton.Config({"BLOCK_M": 128, "BLOCK_N": 64}, num_warps=4, num_stages=3), ...],
                     key=["N_CTX", "HEAD_DIM"],
                     prune_configs_by={"early_config_prune": iosim.triton.prune})

Holds for FlashAttention-2-order forward kernels like the project's attn_fwd (kernels.py): one program
per BLOCK_M rows of Q and a head, streaming BLOCK_N rows of K and V. iosim prices each config as flash2's
forward from the config's compiled record (`iosim tiles --kernels triton`: the project's attn_fwd
compiled for sm_90), so for another kernel the ranking is only as good as its likeness to attn_fwd.
"""

from __future__ import annotations

import functools
import os
from typing import Any, Sequence

DEFAULT_KEEP = 3


def _problem(named_args: dict, kwargs: dict) -> dict:
    """batch, heads, n, d from Q's shape (batch, heads, n, d); causal from a CAUSAL / causal argument."""
    q = next((named_args[k] for k in ("Q", "q", "query") if k in named_args), None)
    if q is None or len(getattr(q, "shape", ())) != 4:
        raise ValueError("iosim.triton.prune: no 4-d Q (batch, heads, n, d) among the kernel's arguments")
    batch, heads, n, d = (int(x) for x in q.shape)
    causal = next((bool(src[k]) for src in (kwargs, named_args) for k in ("CAUSAL", "causal", "IS_CAUSAL")
                   if k in src), False)
    return {"batch": batch, "heads": heads, "n": n, "d": d, "causal": causal}


@functools.lru_cache(maxsize=64)
def _ranked(config: str, batch: int, heads: int, n: int, d: int, causal: bool) -> dict:
    """(BLOCK_M, BLOCK_N, warps, stages) -> predicted ms for every config iosim can run."""
    import iosim
    out = iosim.tiles(config, n=n, d=d, batch=batch, heads=heads, causal=causal, kernels="triton", top=1000)
    return {(c["br"], c["bc"], c["warps"], c["stages"]): c["time_ms"]
            for c in out["candidates"] if c.get("feasible")}


def prune(configs: Sequence[Any], named_args: dict, keep: int | None = None, hardware: str | None = None,
          **kwargs: Any) -> list:
    """The `keep` configs (default 3, or $IOSIM_PRUNE_KEEP) iosim predicts fastest on `hardware` (default
    $IOSIM_PRUNE_CONFIG, else h200); configs iosim rejects or cannot price are dropped, unless none is
    left, when the given configs are returned unchanged. The signature is Triton's early_config_prune's
    (configs, named_args, **kwargs)."""
    keep = keep or int(os.environ.get("IOSIM_PRUNE_KEEP", DEFAULT_KEEP))
    hardware = hardware or os.environ.get("IOSIM_PRUNE_CONFIG", "h200")
    p = _problem(named_args, kwargs)
    times = _ranked(hardware, p["batch"], p["heads"], p["n"], p["d"], p["causal"])
    priced = []
    for cfg in configs:
        kw = getattr(cfg, "kwargs", {})
        key = (kw.get("BLOCK_M"), kw.get("BLOCK_N"), getattr(cfg, "num_warps", 4), getattr(cfg, "num_stages", 3))
        if key in times:
            priced.append((times[key], len(priced), cfg))
    if not priced:
        return list(configs)
    return [cfg for _, _, cfg in sorted(priced)[:keep]]
