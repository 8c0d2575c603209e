"""The project's own Triton attention kernels, in FlashAttention-2's order.

Layout: every tensor is contiguous (batch, heads, n, head_dim); K and V have heads // group heads
(grouped-query attention: query head h reads key/value head h // group). n must be a multiple of
BLOCK_M and BLOCK_N (no bounds masks, so the compiled loops are the ones the time model wants).
Scores are kept in base 2: s = q·k · sm_scale · log2(e), so the softmax is exp2, and the forward
stores L = m + log2(l), the logsumexp of the row in base 2 (natural logsumexp = L · ln 2).

Forward (`attn_fwd`): grid (n / BLOCK_M, batch · heads); a block loads its Q tile once and loops over
K/V tiles of BLOCK_N rows with an online softmax. Causal: the tiles wholly below the diagonal run in
one loop without a mask, the tiles the diagonal crosses in a second, masked loop.

Backward (FlashAttention-2's three kernels, not the fused tutorial structure):
  `attn_bwd_preprocess`  D = rowsum(dO ∘ O), grid (n / BLOCK_M, batch · heads);
  `attn_bwd_dkdv`        grid (n / BLOCK_N, batch · kv_heads): a K/V tile held in registers, a loop over
                         the Q tiles of each query head of its group (causal: the masked diagonal tiles
                         first, then the unmasked ones below), accumulating dK and dV without atomics;
  `attn_bwd_dq`          grid (n / BLOCK_M, batch · heads): a Q tile, a loop over K/V tiles as the forward's.
"""

from __future__ import annotations

import triton
import triton.language as tl

LOG2E = 1.4426950408889634


@triton.jit
def _fwd_tiles(acc, l_i, m_i, q, k_base, v_base, lo, hi, qk_scale, offs_m, offs_n, offs_d,
               BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr, MASKED: tl.constexpr):
    """One run of K/V tiles [lo, hi): S = Q Kᵀ, the online softmax, O += P V."""
    for start_n in range(lo, hi, BLOCK_N):
        cols = start_n + offs_n
        kt = tl.load(k_base + cols[None, :] * HEAD_DIM + offs_d[:, None])     # Kᵀ tile: HEAD_DIM × BLOCK_N
        s = tl.dot(q, kt) * qk_scale
        if MASKED:
            s = tl.where(offs_m[:, None] >= cols[None, :], s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.math.exp2(s - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_base + cols[:, None] * HEAD_DIM + offs_d[None, :])      # BLOCK_N × HEAD_DIM
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_new
    return acc, l_i, m_i


@triton.jit
def attn_fwd(Q, K, V, O, L, sm_scale, H, GROUP, N_CTX,
             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr, CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)                     # batch · H + query head
    off_kv = off_hz // H * (H // GROUP) + off_hz % H // GROUP
    q_base = off_hz.to(tl.int64) * N_CTX * HEAD_DIM
    kv_base = off_kv.to(tl.int64) * N_CTX * HEAD_DIM
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + q_base + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
    qk_scale = sm_scale * 1.4426950408889634
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    if CAUSAL:
        # Tiles [0, lo) lie wholly on or below every row's diagonal; [lo, hi) are crossed by it.
        lo = start_m * BLOCK_M // BLOCK_N * BLOCK_N
        hi = tl.cdiv((start_m + 1) * BLOCK_M, BLOCK_N) * BLOCK_N
        acc, l_i, m_i = _fwd_tiles(acc, l_i, m_i, q, K + kv_base, V + kv_base, 0, lo, qk_scale,
                                   offs_m, offs_n, offs_d, BLOCK_N, HEAD_DIM, False)
        acc, l_i, m_i = _fwd_tiles(acc, l_i, m_i, q, K + kv_base, V + kv_base, lo, hi, qk_scale,
                                   offs_m, offs_n, offs_d, BLOCK_N, HEAD_DIM, True)
    else:
        acc, l_i, m_i = _fwd_tiles(acc, l_i, m_i, q, K + kv_base, V + kv_base, 0, N_CTX, qk_scale,
                                   offs_m, offs_n, offs_d, BLOCK_N, HEAD_DIM, False)
    acc = acc / l_i[:, None]
    tl.store(L + off_hz.to(tl.int64) * N_CTX + offs_m, m_i + tl.math.log2(l_i))
    tl.store(O + q_base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], acc.to(O.dtype.element_ty))


@triton.jit
def attn_bwd_preprocess(O, DO, Delta, N_CTX, BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr):
    off_hz = tl.program_id(1)
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs = off_hz.to(tl.int64) * N_CTX * HEAD_DIM + offs_m[:, None] * HEAD_DIM + tl.arange(0, HEAD_DIM)[None, :]
    o = tl.load(O + offs).to(tl.float32)
    do = tl.load(DO + offs).to(tl.float32)
    tl.store(Delta + off_hz.to(tl.int64) * N_CTX + offs_m, tl.sum(o * do, 1))


@triton.jit
def _dkdv_tiles(dk, dv, k, v, q_base, Q, DO, L, Delta, lo, hi, qk_scale, offs_n, offs_d,
                BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr, MASKED: tl.constexpr):
    """Q tiles [lo, hi) of one query head against a held K/V tile: dV += Pᵀ dO, dK += dSᵀ Q."""
    for start_m in range(lo, hi, BLOCK_M):
        rows = start_m + tl.arange(0, BLOCK_M)
        row_ptr = q_base + rows[None, :] * HEAD_DIM + offs_d[:, None]            # HEAD_DIM × BLOCK_M
        qt = tl.load(Q + row_ptr)
        lse = tl.load(L + q_base // HEAD_DIM + rows)
        pt = tl.math.exp2(tl.dot(k, qt) * qk_scale - lse[None, :])             # Pᵀ: BLOCK_N × BLOCK_M
        if MASKED:
            pt = tl.where(rows[None, :] >= offs_n[:, None], pt, 0.0)
        dot_ = tl.load(DO + row_ptr)                                           # dOᵀ
        dv = tl.dot(pt.to(dot_.dtype), tl.trans(dot_), dv)
        delta = tl.load(Delta + q_base // HEAD_DIM + rows)
        dst = pt * (tl.dot(v, dot_) - delta[None, :])                           # dSᵀ = Pᵀ ∘ (dPᵀ − D)
        dk = tl.dot(dst.to(qt.dtype), tl.trans(qt), dk)
    return dk, dv


@triton.jit
def attn_bwd_dkdv(Q, K, V, DO, L, Delta, DK, DV, sm_scale, H, GROUP, N_CTX,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr, CAUSAL: tl.constexpr):
    start_n = tl.program_id(0) * BLOCK_N
    off_kv = tl.program_id(1)                     # batch · (H / GROUP) + kv head
    kv_heads = H // GROUP
    kv_base = off_kv.to(tl.int64) * N_CTX * HEAD_DIM
    offs_n = start_n + tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    kv_ptr = kv_base + offs_n[:, None] * HEAD_DIM + offs_d[None, :]
    k = tl.load(K + kv_ptr)
    v = tl.load(V + kv_ptr)
    qk_scale = sm_scale * 1.4426950408889634
    dk = tl.zeros([BLOCK_N, HEAD_DIM], tl.float32)
    dv = tl.zeros([BLOCK_N, HEAD_DIM], tl.float32)
    first_head = off_kv // kv_heads * H + off_kv % kv_heads * GROUP
    for g in range(0, GROUP):
        q_base = (first_head + g).to(tl.int64) * N_CTX * HEAD_DIM
        if CAUSAL:
            # Q tiles [lo, hi) are crossed by the diagonal; those from hi on see the whole K/V tile.
            lo = start_n // BLOCK_M * BLOCK_M
            hi = tl.cdiv(start_n + BLOCK_N, BLOCK_M) * BLOCK_M
            dk, dv = _dkdv_tiles(dk, dv, k, v, q_base, Q, DO, L, Delta, lo, hi, qk_scale, offs_n, offs_d,
                                 BLOCK_M, HEAD_DIM, True)
            dk, dv = _dkdv_tiles(dk, dv, k, v, q_base, Q, DO, L, Delta, hi, N_CTX, qk_scale, offs_n, offs_d,
                                 BLOCK_M, HEAD_DIM, False)
        else:
            dk, dv = _dkdv_tiles(dk, dv, k, v, q_base, Q, DO, L, Delta, 0, N_CTX, qk_scale, offs_n, offs_d,
                                 BLOCK_M, HEAD_DIM, False)
    tl.store(DK + kv_ptr, (dk * sm_scale).to(DK.dtype.element_ty))
    tl.store(DV + kv_ptr, dv.to(DV.dtype.element_ty))


@triton.jit
def _dq_tiles(dq, q, do, lse, delta, k_base, v_base, lo, hi, qk_scale, offs_m, offs_d,
              BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr, MASKED: tl.constexpr):
    """K/V tiles [lo, hi) against a held Q tile: dQ += dS K."""
    for start_n in range(lo, hi, BLOCK_N):
        cols = start_n + tl.arange(0, BLOCK_N)
        t_ptr = cols[None, :] * HEAD_DIM + offs_d[:, None]                     # HEAD_DIM × BLOCK_N
        kt = tl.load(k_base + t_ptr)
        p = tl.math.exp2(tl.dot(q, kt) * qk_scale - lse[:, None])
        if MASKED:
            p = tl.where(offs_m[:, None] >= cols[None, :], p, 0.0)
        vt = tl.load(v_base + t_ptr)
        ds = p * (tl.dot(do, vt) - delta[:, None])
        dq = tl.dot(ds.to(kt.dtype), tl.trans(kt), dq)
    return dq


@triton.jit
def attn_bwd_dq(Q, K, V, DO, L, Delta, DQ, sm_scale, H, GROUP, N_CTX,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr, CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_kv = off_hz // H * (H // GROUP) + off_hz % H // GROUP
    q_base = off_hz.to(tl.int64) * N_CTX * HEAD_DIM
    kv_base = off_kv.to(tl.int64) * N_CTX * HEAD_DIM
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    q_ptr = q_base + offs_m[:, None] * HEAD_DIM + offs_d[None, :]
    q = tl.load(Q + q_ptr)
    do = tl.load(DO + q_ptr)
    lse = tl.load(L + off_hz.to(tl.int64) * N_CTX + offs_m)
    delta = tl.load(Delta + off_hz.to(tl.int64) * N_CTX + offs_m)
    qk_scale = sm_scale * 1.4426950408889634
    dq = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    if CAUSAL:
        lo = start_m * BLOCK_M // BLOCK_N * BLOCK_N
        hi = tl.cdiv((start_m + 1) * BLOCK_M, BLOCK_N) * BLOCK_N
        dq = _dq_tiles(dq, q, do, lse, delta, K + kv_base, V + kv_base, 0, lo, qk_scale, offs_m, offs_d,
                       BLOCK_N, HEAD_DIM, False)
        dq = _dq_tiles(dq, q, do, lse, delta, K + kv_base, V + kv_base, lo, hi, qk_scale, offs_m, offs_d,
                       BLOCK_N, HEAD_DIM, True)
    else:
        dq = _dq_tiles(dq, q, do, lse, delta, K + kv_base, V + kv_base, 0, N_CTX, qk_scale, offs_m, offs_d,
                       BLOCK_N, HEAD_DIM, False)
    tl.store(DQ + q_ptr, (dq * sm_scale).to(DQ.dtype.element_ty))


# The kernels by name, with the parameters that are not pointers (their Triton types) and the
# constexprs each takes: what compile.py needs to build a signature.
KERNELS = {
    "attn_fwd": attn_fwd,
    "attn_bwd_preprocess": attn_bwd_preprocess,
    "attn_bwd_dkdv": attn_bwd_dkdv,
    "attn_bwd_dq": attn_bwd_dq,
}
SCALARS = {"sm_scale": "fp32", "H": "i32", "GROUP": "i32", "N_CTX": "i32"}
