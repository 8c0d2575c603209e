// flash1 forward — FlashAttention, Algorithm 1 of Dao et al. 2022 (arXiv 2205.14135), exactly.
//
// Computes O = softmax(S) V with S = scale · Q Kᵀ, keeping the running row max m and row sum l in HBM.
// Kernel A (cuda/kernels/flash_aux.cu): O = 0 (element type), l = 0, m = −inf (fp32, [batch·heads, n]).
// Kernel B: grid = batch · heads, ONE block per head running the whole algorithm:
//   for each K/V tile j (B_c rows):   load K_j, V_j into shared memory
//     for each Q tile i (B_r rows):   load Q_i, O_i (element type), l_i, m_i (fp32) from HBM
//       S = scale·Q_i K_jᵀ;  m̃ = rowmax(S);  P̃ = exp(S − m̃);  l̃ = rowsum(P̃)
//       m_new = max(m_i, m̃);  l_new = e^(m_i−m_new)·l_i + e^(m̃−m_new)·l̃
//       O_i ← (l_i·e^(m_i−m_new)·O_i + e^(m̃−m_new)·P̃ V_j) / l_new
//       store O_i (element type), l_i ← l_new, m_i ← m_new (fp32) to HBM
// Per head: reads 2·n_kv·d + T_c·(2·n·d) elements and T_c·2·n floats, writes (T_c + 1)·n·d elements
// and (T_c + 1)·2·n floats (the +1 is kernel A). O is rounded to the element type at every step, as an
// implementation that keeps O in HBM must: the error grows with T_c (about √(T_c/2) units of roundoff).
// Causal: for K/V tile j only the Q tiles whose rows see one of its keys, from the first its first key's
// row lies in and, with a sliding window of W keys (sim/core/mask.h), up to the last whose window still
// reaches its last key; K_j, V_j are not loaded when no tile does (keys before every row's window). Tiles
// the diagonal or the window's lower edge crosses are computed and masked, as Mask::q_for_cols counts.
//
// Design: B_r/16 warps, each owns 16 rows of every Q tile (its rows of Q_i and O_i are loaded, used and
// stored by that warp alone, so the inner loop needs no block barrier); mma.sync m16n8k16 with fp32
// accumulators for S and P̃ V_j (P̃ reused from the S accumulators as A fragments, as in flash2); Q_i,
// O_i, K_j, V_j arrive by 16-byte cp.async (through L2 only, zero-filled past n / n_kv) into swizzled,
// conflict-free shared tiles (common.cuh); O_i goes back through its shared tile in 16-byte stores; l and m move
// as fp32 scalars (L2-only loads). Speed is not the point: this is the paper's schedule.
//
// Run: iosim::gpu::detail::launch with KernelSpec{"flash1", Direction::fwd, …}; tested in
// tests/gpu/test_kernels.cpp.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cuda/kernels/flash_aux.h"
#include "cuda/kernels/common.cuh"
#include "cuda/kernels/launch_util.cuh"
#include "cuda/kernels/registry.h"

namespace iosim::gpu::kern {

/// The menu tiles this kernel takes: {32, 64, 128}² (B_r/16 warps of 16 rows, at most 136 KiB of
/// shared memory, within an A100's 163 KiB) except B_r = 32 with d = B_c = 128, where ptxas (CUDA
/// 13.0) spills 4 bytes for the 2-warp block.
constexpr bool flash1_fwd_tile_ok(int d, int br, int bc) {
  return (br == 32 || br == 64 || br == 128) && (bc == 32 || bc == 64 || bc == 128) && compiled_head_dim(d) &&
         !(br == 32 && d == 128 && bc == 128);
}

template <int D, int BR, int BC>
struct Flash1FwdTraits {
  static_assert(flash1_fwd_tile_ok(D, BR, BC), "not a flash1 forward tile");
  static constexpr int kD = D;
  static constexpr int kBr = BR;
  static constexpr int kBc = BC;
  static constexpr int kWarps = BR / 16;  ///< each warp owns 16 rows of a Q tile
  static constexpr int kThreads = kWarps * kWarpSize;
  static constexpr int kNS = BC / 8;  ///< n8 tiles of S
  static constexpr int kKQ = D / 16;  ///< k16 steps of Q Kᵀ
  static constexpr int kNO = D / 8;   ///< n8 tiles of O
  static constexpr int kKP = BC / 16; ///< k16 steps of P̃ V
  static constexpr int kStride = D;
  static constexpr int kKVElems = BC * kStride;
  static constexpr int kQElems = BR * kStride;
  static constexpr std::size_t kSmemBytes = (2 * kKVElems + 2 * kQElems) * 2;  // K_j, V_j, Q_i, O_i
  static_assert(kNS % 2 == 0 && kNO % 2 == 0, "B fragments come in pairs of n8 tiles (ldmatrix.x4)");
};

struct Flash1FwdParams {
  const void* q;
  const void* k;
  const void* v;
  void* o;
  float* l;  ///< [batch·heads, n]
  float* m;  ///< [batch·heads, n], maxima of the scaled scores
  int n;
  int n_kv;
  float scale;
  int group;    ///< query heads per K/V head: head bh reads K/V head bh / group
  bool causal;  ///< row r sees key c ≤ r + n_kv − n
  int window;   ///< with causal: row r also needs c > r + n_kv − n − window (sim/core/mask.h); 0: none
};

template <class T, class Tr>
__global__ void __launch_bounds__(Tr::kThreads, 1) flash1_fwd_kernel(const Flash1FwdParams p) {
  constexpr int kD = Tr::kD, kBr = Tr::kBr, kBc = Tr::kBc, kStride = Tr::kStride;
  constexpr int kNS = Tr::kNS, kKQ = Tr::kKQ, kNO = Tr::kNO, kKP = Tr::kKP;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* const k_s = reinterpret_cast<T*>(smem_raw);
  T* const v_s = k_s + Tr::kKVElems;
  T* const q_s = v_s + Tr::kKVElems;
  T* const o_s = q_s + Tr::kQElems;

  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid % kWarpSize;
  const int warp = tid / kWarpSize;
  const int bh = static_cast<int>(blockIdx.x);
  const std::int64_t q_off = static_cast<std::int64_t>(bh) * p.n * kD;
  const std::int64_t kv_off = static_cast<std::int64_t>(bh / p.group) * p.n_kv * kD;
  const int offset = p.n_kv - p.n;
  const T* const q = static_cast<const T*>(p.q) + q_off;
  const T* const k = static_cast<const T*>(p.k) + kv_off;
  const T* const v = static_cast<const T*>(p.v) + kv_off;
  T* const o = static_cast<T*>(p.o) + q_off;
  float* const l = p.l + static_cast<std::int64_t>(bh) * p.n;
  float* const m = p.m + static_cast<std::int64_t>(bh) * p.n;
  const int kv_tiles = (p.n_kv + kBc - 1) / kBc;
  const int wrow = warp * 16;
  T* const qw = q_s + wrow * kStride;  // this warp's 16 rows of Q_i and O_i
  T* const ow = o_s + wrow * kStride;

  for (int j = 0; j < kv_tiles; ++j) {
    // Causal: the Q tiles before the first that sees key j·B_c are skipped, and (window) those after
    // the last whose rows' windows reach the tile's last key (Mask::q_for_cols); K_j, V_j are not
    // loaded when no Q tile is left (block-uniform: every thread skips the barriers alike).
    const int first_q = causal_first_q_tile(p.causal, j * kBc, p.n, p.n_kv, kBr);
    const int end_q = window_end_q_tile(p.window, min((j + 1) * kBc, p.n_kv), p.n, p.n_kv, kBr);
    if (first_q >= end_q) continue;
    __syncthreads();  // every warp is done with K_{j-1}, V_{j-1}
    load_rows_async<kBc, kD, Tr::kThreads>(k_s, k, j * kBc, p.n_kv, tid);
    load_rows_async<kBc, kD, Tr::kThreads>(v_s, v, j * kBc, p.n_kv, tid);
    cp_async_commit();
    cp_async_wait<0>();
    __syncthreads();

    for (int i = first_q; i < end_q; ++i) {
      const int r0 = i * kBr + wrow;  // first row of this warp
      if (r0 >= p.n) break;           // warp-uniform: no rows of the last tile left for this warp
      load_rows_async<16, kD, kWarpSize>(qw, q, r0, p.n, lane);
      load_rows_async<16, kD, kWarpSize>(ow, o, r0, p.n, lane);
      cp_async_commit();
      float m_i[2], l_i[2];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int r = r0 + frag_row(0, 2 * h, lane);
        m_i[h] = r < p.n ? __ldcg(m + r) : -INFINITY;
        l_i[h] = r < p.n ? __ldcg(l + r) : 0.f;
      }
      cp_async_wait<0>();
      __syncwarp();

      // S = scale · Q_i K_jᵀ
      float s[kNS][4];
#pragma unroll
      for (int nt = 0; nt < kNS; ++nt) {
#pragma unroll
        for (int e = 0; e < 4; ++e) s[nt][e] = 0.f;
      }
#pragma unroll
      for (int kk = 0; kk < kKQ; ++kk) {
        std::uint32_t a[4];
        load_a_mk(a, qw, kStride, 0, kk * 16, lane);
#pragma unroll
        for (int np = 0; np < kNS / 2; ++np) {
          std::uint32_t b[4];
          load_b_nk(b, k_s, kStride, np * 16, kk * 16, lane);
          mma16816<T>(s[2 * np], a, b[0], b[1]);
          mma16816<T>(s[2 * np + 1], a, b[2], b[3]);
        }
      }
      // Keys past n_kv (last tile), (causal) keys right of the row's diagonal and (window) keys at or
      // before the row's diagonal − W: −inf. `last0` is the last key row g of this warp's 16 sees (row
      // g + 8 sees 8 more); without a window `before0` is below every key.
      const int last0 = r0 + offset + (lane >> 2);
      const int before0 = p.window > 0 ? last0 - p.window : -kBr - 1;  // row g's keys ≤ this are masked
#pragma unroll
      for (int nt = 0; nt < kNS; ++nt) {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int c = j * kBc + frag_col(nt, e, lane);
          const int last = p.causal ? min(last0 + ((e >> 1) << 3), p.n_kv - 1) : p.n_kv - 1;
          const int before = before0 + ((e >> 1) << 3);
          s[nt][e] = c > last || c <= before ? -INFINITY : s[nt][e] * p.scale;
        }
      }

      // m̃, P̃, l̃ and the update coefficients of O_i (per row; a row lives in the 4 lanes of a quad).
      float c_old[2], c_new[2];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float mt_ = -INFINITY;
#pragma unroll
        for (int nt = 0; nt < kNS; ++nt) mt_ = fmaxf(mt_, fmaxf(s[nt][2 * h], s[nt][2 * h + 1]));
        mt_ = fmaxf(mt_, __shfl_xor_sync(kFullMask, mt_, 1));
        mt_ = fmaxf(mt_, __shfl_xor_sync(kFullMask, mt_, 2));
        // −inf when the row sees no key of this tile (causal, or a window that has not reached the tile
        // or has passed it): then P̃ = 0, l̃ = 0, and nothing changes.
        const bool none = mt_ == -INFINITY;
        const float mt_log2 = none ? 0.f : mt_ * kLog2e;
        float lt = 0.f;
#pragma unroll
        for (int nt = 0; nt < kNS; ++nt) {
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const float pe = fast_exp2(fmaf(s[nt][2 * h + e], kLog2e, -mt_log2));
            s[nt][2 * h + e] = pe;
            lt += pe;
          }
        }
        lt += __shfl_xor_sync(kFullMask, lt, 1);
        lt += __shfl_xor_sync(kFullMask, lt, 2);
        const float m_new = fmaxf(m_i[h], mt_);
        // m_new = −inf only when the row has seen no key at all: l stays 0, O stays 0.
        const float a_old = m_i[h] == -INFINITY ? 0.f : fast_exp2((m_i[h] - m_new) * kLog2e);  // 0 on its first tile
        const float a_new = none ? 0.f : fast_exp2((mt_ - m_new) * kLog2e);
        const float l_new = a_old * l_i[h] + a_new * lt;
        c_old[h] = l_new > 0.f ? l_i[h] * a_old / l_new : 0.f;
        c_new[h] = l_new > 0.f ? a_new / l_new : 0.f;
        m_i[h] = m_new;
        l_i[h] = l_new;
      }

      // P̃ V_j
      float pv[kNO][4];
#pragma unroll
      for (int no = 0; no < kNO; ++no) {
#pragma unroll
        for (int e = 0; e < 4; ++e) pv[no][e] = 0.f;
      }
#pragma unroll
      for (int kk = 0; kk < kKP; ++kk) {
        const std::uint32_t a[4] = {pack2<T>(s[2 * kk][0], s[2 * kk][1]), pack2<T>(s[2 * kk][2], s[2 * kk][3]),
                                    pack2<T>(s[2 * kk + 1][0], s[2 * kk + 1][1]),
                                    pack2<T>(s[2 * kk + 1][2], s[2 * kk + 1][3])};
#pragma unroll
        for (int np = 0; np < kNO / 2; ++np) {
          std::uint32_t b[4];
          load_b_kn(b, v_s, kStride, np * 16, kk * 16, lane);
          mma16816<T>(pv[2 * np], a, b[0], b[1]);
          mma16816<T>(pv[2 * np + 1], a, b[2], b[3]);
        }
      }

      // O_i ← c_old·O_i + c_new·P̃ V_j, in place in this warp's O tile, then to HBM with l_i, m_i.
#pragma unroll
      for (int no = 0; no < kNO; ++no) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          std::uint32_t& cell = smem_pair(ow, kStride, frag_row(0, 2 * h, lane), frag_col(no, 0, lane));
          const float2 old = unpack2<T>(cell);
          cell = pack2<T>(c_old[h] * old.x + c_new[h] * pv[no][2 * h], c_old[h] * old.y + c_new[h] * pv[no][2 * h + 1]);
        }
      }
      if ((lane & 3) == 0) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int r = r0 + frag_row(0, 2 * h, lane);
          if (r < p.n) {
            l[r] = l_i[h];
            m[r] = m_i[h];
          }
        }
      }
      __syncwarp();
      store_rows<16, kD, kWarpSize>(o, ow, r0, p.n, lane);
      __syncwarp();  // this warp's reads of its Q_i, O_i rows are done before the next step refills them
    }
  }
}

}  // namespace iosim::gpu::kern

namespace iosim::gpu::detail {

template <class T, int D, int BR, int BC>
void launch_flash1_fwd(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream) {
  using Tr = kern::Flash1FwdTraits<D, BR, BC>;
  launch_flash1_fwd_init(spec, buf, stream);
  const auto kernel = kern::flash1_fwd_kernel<T, Tr>;
  allow_dynamic_smem(kernel, Tr::kSmemBytes);
  const kern::Flash1FwdParams p{buf.device(Tensor::Q), buf.device(Tensor::K), buf.device(Tensor::V),
                                buf.device(Tensor::O), device_ptr<float>(buf, Tensor::l),
                                device_ptr<float>(buf, Tensor::m), spec.n, spec.n_kv,
                                1.f / std::sqrt(static_cast<float>(D)), group_size(spec), spec.causal,
                                spec.window};
  kernel<<<static_cast<unsigned>(spec.batch * spec.heads), Tr::kThreads, Tr::kSmemBytes, stream>>>(p);
  IOSIM_CUDA_CHECK_LAUNCH();
}

/// The kernel as rows of the menu (cuda/kernels/menu.csv, menu_entry.cuh): the tiles
/// flash1_fwd_tile_ok takes, B_r/16 warps, one stage.
struct Flash1FwdKernel {
  static constexpr Direction kPass = Direction::fwd;
  template <int D, int BR, int BC, int WARPS, int STAGES>
  static constexpr bool accepts() {
    return kern::flash1_fwd_tile_ok(D, BR, BC) && WARPS == BR / 16 && STAGES == 1;
  }
  template <int D, int BR, int BC, int, int>
  using Traits = kern::Flash1FwdTraits<D, BR, BC>;
  template <class T, class Tr>
  static void launch(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream) {
    launch_flash1_fwd<T, Tr::kD, Tr::kBr, Tr::kBc>(spec, buf, stream);
  }
};

}  // namespace iosim::gpu::detail
