"""Correctness of the project's Triton kernels against torch's scaled_dot_product_attention (on a GPU).

`check(...)` runs forward and backward on random inputs and returns the largest absolute errors of
O, the logsumexp, dQ, dK and dV against SDPA in float32 (GQA by repeating K/V heads), and whether each
is within tolerance (fp16: 2e-2, bf16: 6e-2 on values of order one, dK/dV summed over a group looser).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from .launch import Launch, backward, forward

TOLERANCE = {torch.float16: 2e-2, torch.bfloat16: 6e-2}


def inputs(batch, heads, kv_heads, n, d, dtype, device="cuda", seed=0):
    g = torch.Generator(device=device).manual_seed(seed)
    mk = lambda h: torch.randn((batch, h, n, d), generator=g, device=device, dtype=dtype)  # noqa: E731
    return mk(heads), mk(kv_heads), mk(kv_heads), mk(heads)


def sdpa(q, k, v, do, causal):
    """Float32 reference: O, the natural logsumexp, and dQ, dK, dV by autograd."""
    group = q.shape[1] // k.shape[1]
    q32, k32, v32 = (t.float().requires_grad_() for t in (q, k, v))
    kr, vr = k32.repeat_interleave(group, 1), v32.repeat_interleave(group, 1)
    o = F.scaled_dot_product_attention(q32, kr, vr, is_causal=causal)
    s = q32 @ kr.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if causal:
        n = q.shape[2]
        s = s.masked_fill(torch.ones(n, n, dtype=torch.bool, device=q.device).triu(1), float("-inf"))
    lse = torch.logsumexp(s, -1)
    o.backward(do.float())
    return o.detach(), lse.detach(), q32.grad, k32.grad, v32.grad


def check(batch=1, heads=4, kv_heads=4, n=512, d=64, causal=False, dtype=torch.float16,
          cfg: Launch = Launch()) -> dict:
    q, k, v, do = inputs(batch, heads, kv_heads, n, d, dtype)
    o, lse2 = forward(q, k, v, causal, cfg)
    dq, dk, dv = backward(q, k, v, o, lse2, do, causal, cfg)
    ro, rlse, rdq, rdk, rdv = sdpa(q, k, v, do, causal)
    group = heads // kv_heads
    tol = TOLERANCE[dtype]
    err = {"o": (o.float() - ro).abs().max().item(),
           "lse": (lse2 * math.log(2) - rlse).abs().max().item(),
           "dq": (dq.float() - rdq).abs().max().item(),
           "dk": (dk.float() - rdk).abs().max().item(),
           "dv": (dv.float() - rdv).abs().max().item()}
    limit = {"o": tol, "lse": tol, "dq": 2 * tol, "dk": 2 * tol * group, "dv": 2 * tol * group}
    return {"max_abs_error": err, "ok": all(err[x] <= limit[x] for x in err), "limits": limit}


if __name__ == "__main__":  # a quick check on the GPU: python3 -m iosim.triton.reference
    for causal in (False, True):
        for kvh in (4, 2):
            print(f"causal={causal} kv_heads={kvh}", check(kv_heads=kvh, causal=causal))
