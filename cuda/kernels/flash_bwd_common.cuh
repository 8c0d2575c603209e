// The inner step shared by the flash1 and flash2 backward kernels (flash1_bwd.cuh, flash2_bwd.cuh):
// the block holds K_j, V_j (B_c rows) and Q_i, dO_i (B_r rows) in shared memory and, per row of Q_i,
// the statistics that turn scores into probabilities (P = exp2(S·log2e − sub) · mul, sub and mul
// from l, m for flash1 and from L for flash2) and D_i. The step:
//   S = Q_i K_jᵀ, dP = dO_i V_jᵀ   (registers; warps tile B_r × B_c)
//   P, dS = P ∘ (dP − D_i)          → shared memory (element type), 0 outside n × n_kv
//   dV_j += Pᵀ dO_i, dK_j += dSᵀ Q_i (registers, fp32; warps tile B_c × d; dK scaled at the end)
//   dQ_i partial = dS K_j           (registers; warps tile B_r × d), handed to the caller
// Every product is a warp_gemm (mma.sync m16n8k16) on shared operands; shared tiles are
// XOR-swizzled (conflict-free ldmatrix, see common.cuh).
#pragma once

#include <cstddef>
#include <cstdint>

#include "cuda/backend.h"
#include "cuda/kernels/common.cuh"

namespace iosim::gpu::kern {

inline constexpr int kBwdMaxAccFloats = 128;          ///< accumulator registers per thread, at most

/// Peak accumulator registers per thread with `nw` warps: dK and dV (live through the Q loop) plus the
/// larger of S + dP (first half of a step) and dQ (second half).
constexpr int bwd_acc_floats(int d, int br, int bc, int nw) {
  const WarpGridShape s = warp_grid(br, bc, nw);
  const WarpGridShape kv = warp_grid(bc, d, nw);
  const WarpGridShape q = warp_grid(br, d, nw);
  const int sdp = 2 * 4 * s.mt * s.nt;
  const int dq = 4 * q.mt * q.nt;
  return 2 * 4 * kv.mt * kv.nt + (sdp > dq ? sdp : dq);
}

/// Whether `nw` warps tile every product of a backward block within kBwdMaxAccFloats accumulator
/// registers.
constexpr bool bwd_warps_ok(int d, int br, int bc, int nw) {
  return warp_grid(br, bc, nw).ok && warp_grid(bc, d, nw).ok && warp_grid(br, d, nw).ok &&
         bwd_acc_floats(d, br, bc, nw) <= kBwdMaxAccFloats;
}

/// Warps of a backward block by default: 4, or 8 when 4 would need more than kBwdMaxAccFloats
/// accumulator registers (0 when neither tiles every product within it). Not 16: at 512 threads a
/// thread may have only 128 registers, and such tiles spill.
constexpr int bwd_warps(int d, int br, int bc) {
  for (int nw = 4; nw <= 8; nw *= 2) {
    if (bwd_warps_ok(d, br, bc, nw)) return nw;
  }
  return 0;
}

/// Shared memory of a backward block, bytes. Tiles of 16-bit elements: K_j, V_j (B_c rows), Q_i, dO_i
/// and for flash1 O_i, dQ_i (B_r rows), all d wide (swizzled, unpadded); P, dS (B_r × B_c, swizzled).
/// flash2 adds the fp32 dQ staging tile (B_r × (d + 8)); both add three fp32 statistics per row.
constexpr std::size_t bwd_smem_bytes(bool flash1, int d, int br, int bc) {
  const auto stride = static_cast<std::size_t>(d);
  const std::size_t halves = 2 * bc * stride + (flash1 ? 4 : 2) * br * stride + 2 * br * bc;
  const std::size_t floats = (flash1 ? 0 : br * (d + 8)) + 3 * br;
  return 2 * halves + 4 * floats;
}

constexpr bool bwd_tile_ok(bool flash1, int d, int br, int bc) {
  return (br == 32 || br == 64 || br == 128) && (bc == 32 || bc == 64 || bc == 128) && compiled_head_dim(d) &&
         bwd_warps(d, br, bc) > 0 && bwd_smem_bytes(flash1, d, br, bc) <= kMaxSmemOptin;
}

/// The variants flash2's backward takes: the tiles of bwd_tile_ok and B_r = 256 where it fits, with
/// every warp count of {4, 8} that bwd_warps_ok accepts (flash1's backward takes bwd_warps only).
constexpr bool flash2_bwd_variant_ok(int d, int br, int bc, int nw) {
  return (br == 32 || br == 64 || br == 128 || br == 256) && (bc == 32 || bc == 64 || bc == 128) &&
         compiled_head_dim(d) && (nw == 4 || nw == 8) && bwd_warps_ok(d, br, bc, nw) &&
         bwd_smem_bytes(false, d, br, bc) <= kMaxSmemOptin;
}

template <int D, int BR, int BC, bool kFlash1, int NW = bwd_warps(D, BR, BC)>
struct FlashBwdTraits {
  static_assert(kFlash1 ? bwd_tile_ok(true, D, BR, BC) && NW == bwd_warps(D, BR, BC)
                        : flash2_bwd_variant_ok(D, BR, BC, NW),
                "not a backward variant");
  static constexpr int kD = D;
  static constexpr int kBr = BR;
  static constexpr int kBc = BC;
  static constexpr int kWarps = NW;
  static constexpr int kThreads = kWarps * kWarpSize;
  static constexpr int kStride = D;               ///< Q, K, V, dO, O, dQ tiles (swizzled)
  static constexpr int kPStride = BC;             ///< P, dS tiles (swizzled)
  static constexpr int kAccStride = D + 8;        ///< fp32 dQ staging: ≡ 8 (mod 32) words, conflict-free float2
  using GridS = WarpGrid<BR, BC, kWarps>;         ///< S, dP, P, dS
  using GridKV = WarpGrid<BC, D, kWarps>;         ///< dK, dV
  using GridQ = WarpGrid<BR, D, kWarps>;          ///< dQ
  static constexpr int kKVElems = BC * kStride;
  static constexpr int kQElems = BR * kStride;
  static constexpr int kPElems = BR * kPStride;
  static constexpr int kHalfElems = 2 * kKVElems + (kFlash1 ? 4 : 2) * kQElems + 2 * kPElems;
  static constexpr int kAccFloats = kFlash1 ? 0 : BR * kAccStride;
  static constexpr std::size_t kSmemBytes = bwd_smem_bytes(kFlash1, D, BR, BC);
  static_assert(kSmemBytes == 2 * static_cast<std::size_t>(kHalfElems) + 4 * static_cast<std::size_t>(kAccFloats + 3 * BR));
  static_assert((2 * kHalfElems) % 16 == 0, "the fp32 region starts 16-byte aligned");
};

/// Pointers into the dynamic shared memory of a backward block.
template <class T, class Tr>
struct BwdSmem {
  T* k;
  T* v;
  T* q;
  T* dout;
  T* o;   ///< flash1 only
  T* dq;  ///< flash1 only
  T* p;
  T* ds;
  float* acc;      ///< flash2 only: scale·dS K_j, fp32
  float* row_sub;  ///< per row of Q_i: P = exp2(S_raw·scale·log2e − row_sub) · row_mul
  float* row_mul;
  float* row_d;    ///< D_i

  __device__ explicit BwdSmem(unsigned char* raw) {
    T* h = reinterpret_cast<T*>(raw);
    k = h;
    v = k + Tr::kKVElems;
    q = v + Tr::kKVElems;
    dout = q + Tr::kQElems;
    T* next = dout + Tr::kQElems;
    if constexpr (Tr::kAccFloats == 0) {
      o = next;
      dq = o + Tr::kQElems;
      next = dq + Tr::kQElems;
    } else {
      o = nullptr;
      dq = nullptr;
    }
    p = next;
    ds = p + Tr::kPElems;
    float* f = reinterpret_cast<float*>(raw + 2 * static_cast<std::size_t>(Tr::kHalfElems));
    acc = Tr::kAccFloats > 0 ? f : nullptr;
    row_sub = f + Tr::kAccFloats;
    row_mul = row_sub + Tr::kBr;
    row_d = row_mul + Tr::kBr;
  }
};

/// S, dP → P, dS in shared memory, for Q rows [q0, q0 + B_r) and K/V rows [kv0, kv0 + B_c). Entries
/// outside n × n_kv, (causal) right of the diagonal (key c > row r + n_kv − n) and (a sliding window
/// of `window` keys, 0: none) at or left of its lower edge (c ≤ r + n_kv − n − window) are 0, so that
/// they add nothing to dV, dK or dQ. Needs Q_i, dO_i, K_j, V_j and the
/// row statistics in shared memory (after a barrier); P and dS are ready after the next barrier.
template <class T, class Tr>
__device__ __forceinline__ void bwd_probs(const BwdSmem<T, Tr>& sm, int q0, int kv0, int n, int n_kv, bool causal,
                                          int window, float scale_log2, int warp, int lane) {
  using G = typename Tr::GridS;
  constexpr int kMT = G::kMT, kNT = G::kNT;
  float s[kMT][kNT][4];
  float dp[kMT][kNT][4];
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt) {
#pragma unroll
    for (int nt = 0; nt < kNT; ++nt) {
#pragma unroll
      for (int e = 0; e < 4; ++e) s[mt][nt][e] = dp[mt][nt][e] = 0.f;
    }
  }
  const int m0 = G::m0(warp), n0 = G::n0(warp);
  warp_gemm<T, kMT, kNT, Tr::kD, Layout::mk, Layout::nk>(s, sm.q, Tr::kStride, sm.k, Tr::kStride, m0, n0, lane);
  warp_gemm<T, kMT, kNT, Tr::kD, Layout::mk, Layout::nk>(dp, sm.dout, Tr::kStride, sm.v, Tr::kStride, m0, n0, lane);
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int r = m0 + frag_row(mt, 2 * h, lane);
      const bool row_ok = q0 + r < n;
      const int diag = q0 + r + n_kv - n;                 // the row's last key (causal)
      const int before = window > 0 ? diag - window : -1;  // keys ≤ this lie before its window
      const float sub = sm.row_sub[r], mul = sm.row_mul[r], dd = sm.row_d[r];
#pragma unroll
      for (int nt = 0; nt < kNT; ++nt) {
        const int c = n0 + frag_col(nt, 0, lane);
        float pe[2], dse[2];
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int key = kv0 + c + e;
          const bool ok = row_ok && key < n_kv && (!causal || key <= diag) && key > before;
          pe[e] = ok ? fast_exp2(fmaf(s[mt][nt][2 * h + e], scale_log2, -sub)) * mul : 0.f;
          dse[e] = pe[e] * (dp[mt][nt][2 * h + e] - dd);
        }
        smem_pair(sm.p, Tr::kPStride, r, c) = pack2<T>(pe[0], pe[1]);
        smem_pair(sm.ds, Tr::kPStride, r, c) = pack2<T>(dse[0], dse[1]);
      }
    }
  }
}

/// dV_j += Pᵀ dO_i and dK_j += dSᵀ Q_i (dK unscaled). Needs P, dS (after a barrier).
template <class T, class Tr, int MT, int NT>
__device__ __forceinline__ void bwd_accumulate_kv(const BwdSmem<T, Tr>& sm, float (&dk)[MT][NT][4], float (&dv)[MT][NT][4],
                                                  int warp, int lane) {
  using G = typename Tr::GridKV;
  static_assert(MT == G::kMT && NT == G::kNT);
  const int m0 = G::m0(warp), n0 = G::n0(warp);
  warp_gemm<T, MT, NT, Tr::kBr, Layout::km, Layout::kn>(dv, sm.p, Tr::kPStride, sm.dout, Tr::kStride, m0, n0, lane);
  warp_gemm<T, MT, NT, Tr::kBr, Layout::km, Layout::kn>(dk, sm.ds, Tr::kPStride, sm.q, Tr::kStride, m0, n0, lane);
}

/// dq = dS K_j (this warp's GridQ tile). Needs dS (after a barrier).
template <class T, class Tr, int MT, int NT>
__device__ __forceinline__ void bwd_dq(const BwdSmem<T, Tr>& sm, float (&dq)[MT][NT][4], int warp, int lane) {
  using G = typename Tr::GridQ;
  static_assert(MT == G::kMT && NT == G::kNT);
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) {
#pragma unroll
      for (int e = 0; e < 4; ++e) dq[mt][nt][e] = 0.f;
    }
  }
  warp_gemm<T, MT, NT, Tr::kBc, Layout::mk, Layout::kn>(dq, sm.ds, Tr::kPStride, sm.k, Tr::kStride, G::m0(warp),
                                                        G::n0(warp), lane);
}

/// After the Q loop: dK_j (times scale) and dV_j into the K_j and V_j tiles, in the element type.
/// Needs a barrier before (K_j, V_j no longer read) and one after (before the tiles go out).
template <class T, class Tr, int MT, int NT>
__device__ __forceinline__ void bwd_stage_kv(const BwdSmem<T, Tr>& sm, const float (&dk)[MT][NT][4],
                                             const float (&dv)[MT][NT][4], float scale, int warp, int lane) {
  using G = typename Tr::GridKV;
  const int m0 = G::m0(warp), n0 = G::n0(warp);
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int r = m0 + frag_row(mt, 2 * h, lane), c = n0 + frag_col(nt, 0, lane);
        smem_pair(sm.k, Tr::kStride, r, c) = pack2<T>(dk[mt][nt][2 * h] * scale, dk[mt][nt][2 * h + 1] * scale);
        smem_pair(sm.v, Tr::kStride, r, c) = pack2<T>(dv[mt][nt][2 * h], dv[mt][nt][2 * h + 1]);
      }
    }
  }
}

}  // namespace iosim::gpu::kern
