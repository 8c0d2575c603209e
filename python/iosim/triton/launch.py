"""Launching the project's kernels on a GPU from torch tensors (needs torch and a CUDA device).

q: (batch, heads, n, d); k, v: (batch, heads / group, n, d); fp16 or bf16; n a multiple of both tiles.
`forward` returns (o, L) with L the base-2 logsumexp (kernels.py); `backward` returns (dq, dk, dv).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from .kernels import attn_bwd_dkdv, attn_bwd_dq, attn_bwd_preprocess, attn_fwd


@dataclass(frozen=True)
class Launch:
    block_m: int = 128
    block_n: int = 64
    num_warps: int = 4
    num_stages: int = 3


def _check(q, k, v, cfg: Launch):
    b, h, n, d = q.shape
    if k.shape != v.shape or k.shape[0] != b or k.shape[2] != n or k.shape[3] != d or h % k.shape[1]:
        raise ValueError(f"shapes q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)} do not fit")
    if n % cfg.block_m or n % cfg.block_n:
        raise ValueError(f"n = {n} is not a multiple of BLOCK_M = {cfg.block_m} and BLOCK_N = {cfg.block_n}")
    return b, h, n, d, h // k.shape[1]


def forward(q, k, v, causal: bool, cfg: Launch = Launch(), sm_scale: float | None = None):
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    b, h, n, d, group = _check(q, k, v, cfg)
    scale = sm_scale if sm_scale is not None else d ** -0.5
    o = torch.empty_like(q)
    lse = torch.empty((b, h, n), device=q.device, dtype=torch.float32)
    attn_fwd[(n // cfg.block_m, b * h)](q, k, v, o, lse, scale, h, group, n, BLOCK_M=cfg.block_m,
                                         BLOCK_N=cfg.block_n, HEAD_DIM=d, CAUSAL=causal,
                                         num_warps=cfg.num_warps, num_stages=cfg.num_stages)
    return o, lse


def backward(q, k, v, o, lse, do, causal: bool, cfg: Launch = Launch(), sm_scale: float | None = None):
    q, k, v, o, do = (t.contiguous() for t in (q, k, v, o, do))
    b, h, n, d, group = _check(q, k, v, cfg)
    scale = sm_scale if sm_scale is not None else d ** -0.5
    delta = torch.empty_like(lse)
    attn_bwd_preprocess[(n // cfg.block_m, b * h)](o, do, delta, n, BLOCK_M=cfg.block_m, HEAD_DIM=d)
    dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
    opts = dict(BLOCK_M=cfg.block_m, BLOCK_N=cfg.block_n, HEAD_DIM=d, CAUSAL=causal,
                num_warps=cfg.num_warps, num_stages=cfg.num_stages)
    attn_bwd_dkdv[(n // cfg.block_n, b * k.shape[1])](q, k, v, do, lse, delta, dk, dv, scale, h, group, n, **opts)
    attn_bwd_dq[(n // cfg.block_m, b * h)](q, k, v, do, lse, delta, dq, scale, h, group, n, **opts)
    return dq, dk, dv
