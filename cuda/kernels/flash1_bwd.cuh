// flash1 backward — FlashAttention's backward pass, Algorithm 4 of Dao et al. 2022 (arXiv 2205.14135,
// appendix B), with the l, m and O saved by flash1 forward.
//
// Kernel A (cuda/kernels/flash_aux.cu): dQ = dK = dV = 0 (element type).
// Kernel B: grid = batch · heads, one block per head:
//   for each K/V tile j (B_c rows):   load K_j, V_j; dK_j = dV_j = 0 (registers, fp32)
//     for each Q tile i (B_r rows):   load Q_i, O_i, dO_i, dQ_i (element type), l_i, m_i (fp32)
//       S = scale·Q_i K_jᵀ; P = exp(S − m_i) / l_i; dV_j += Pᵀ dO_i; dP = dO_i V_jᵀ
//       D_i = rowsum(dO_i ∘ O_i)     (recomputed at every step, as the algorithm does)
//       dS = P ∘ (dP − D_i); dQ_i += scale·dS K_j, stored to HBM (element type); dK_j += scale·dSᵀ Q_i
//     store dK_j, dV_j (element type)
// Kernel B per head: reads 2·n_kv·d + T_c·4·n·d elements and T_c·2·n floats, writes T_c·n·d + 2·n_kv·d
// elements. dQ_i is rounded to the element type at every step (error ∝ √T_c units of roundoff).
// Causal, and with a sliding window of W keys (sim/core/mask.h): for K/V tile j only the Q tiles whose
// rows see one of its keys, those an edge crosses masked.
//
// Design: as flash2 backward (flash_bwd_common.cuh: warps tile each product, S and dP in registers,
// P and dS through shared memory, 16-byte cp.async loads and 16-byte stores); dQ_i is read into a
// shared tile, updated in place by the threads that own its elements, and written back whole.
//
// Run: iosim::gpu::detail::launch with KernelSpec{"flash1", Direction::bwd, …} after
// prepare_backward; tested in tests/gpu/test_kernels.cpp.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "cuda/kernels/flash_aux.h"
#include "cuda/kernels/flash_bwd_common.cuh"
#include "cuda/kernels/launch_util.cuh"
#include "cuda/kernels/registry.h"

namespace iosim::gpu::kern {

struct Flash1BwdParams {
  const void* q;
  const void* k;
  const void* v;
  const void* o;
  const void* dout;
  const float* l;
  const float* m;
  void* dq;
  void* dk;  ///< per query head ([batch·heads, n_kv, d]; summed over each group after, when group > 1)
  void* dv;
  int n;
  int n_kv;
  float scale;
  int group;    ///< query heads per K/V head: head bh reads K/V head bh / group
  bool causal;  ///< row r sees key c ≤ r + n_kv − n
  int window;   ///< with causal: row r also needs c > r + n_kv − n − window (sim/core/mask.h); 0: none
};

template <class T, class Tr>
__global__ void __launch_bounds__(Tr::kThreads, 1) flash1_bwd_kernel(const Flash1BwdParams p) {
  constexpr int kD = Tr::kD, kBr = Tr::kBr, kBc = Tr::kBc, kStride = Tr::kStride, kWarps = Tr::kWarps;
  using GKV = typename Tr::GridKV;
  using GQ = typename Tr::GridQ;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const BwdSmem<T, Tr> sm(smem_raw);

  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid % kWarpSize;
  const int warp = tid / kWarpSize;
  const int bh = static_cast<int>(blockIdx.x);
  const std::int64_t q_off = static_cast<std::int64_t>(bh) * p.n * kD;
  const std::int64_t kv_off = static_cast<std::int64_t>(bh / p.group) * p.n_kv * kD;  // K, V
  const std::int64_t dkv_off = static_cast<std::int64_t>(bh) * p.n_kv * kD;           // dK, dV (per query head)
  const T* const q = static_cast<const T*>(p.q) + q_off;
  const T* const o = static_cast<const T*>(p.o) + q_off;
  const T* const dout = static_cast<const T*>(p.dout) + q_off;
  T* const dq = static_cast<T*>(p.dq) + q_off;
  const float* const l = p.l + static_cast<std::int64_t>(bh) * p.n;
  const float* const m = p.m + static_cast<std::int64_t>(bh) * p.n;
  const float scale_log2 = p.scale * kLog2e;
  const int kv_tiles = (p.n_kv + kBc - 1) / kBc;

  for (int j = 0; j < kv_tiles; ++j) {
    const int kv0 = j * kBc;
    __syncthreads();  // the previous tile's dK, dV have left K_j, V_j's shared tiles
    // Causal: the Q tiles before the first that sees key kv0 are skipped, and (window) those after the
    // last whose rows' windows reach the tile's last key (Mask::q_for_cols); K_j, V_j are not read
    // when no tile sees them (dK_j = dV_j = 0 still go out).
    const int first_q = causal_first_q_tile(p.causal, kv0, p.n, p.n_kv, kBr);
    const int end_q = window_end_q_tile(p.window, min(kv0 + kBc, p.n_kv), p.n, p.n_kv, kBr);
    if (first_q < end_q) {
      load_rows_async<kBc, kD, Tr::kThreads>(sm.k, static_cast<const T*>(p.k) + kv_off, kv0, p.n_kv, tid);
      load_rows_async<kBc, kD, Tr::kThreads>(sm.v, static_cast<const T*>(p.v) + kv_off, kv0, p.n_kv, tid);
      cp_async_commit();
    }

    float dk[GKV::kMT][GKV::kNT][4];
    float dv[GKV::kMT][GKV::kNT][4];
#pragma unroll
    for (int mt = 0; mt < GKV::kMT; ++mt) {
#pragma unroll
      for (int nt = 0; nt < GKV::kNT; ++nt) {
#pragma unroll
        for (int e = 0; e < 4; ++e) dk[mt][nt][e] = dv[mt][nt][e] = 0.f;
      }
    }

    for (int i = first_q; i < end_q; ++i) {
      const int q0 = i * kBr;
      // Q_i, O_i, dO_i, dQ_i, l_i, m_i. The dQ_i tile's chunks are reloaded by the threads that
      // stored them at the end of the previous step; everything else was last read before (3).
      load_rows_async<kBr, kD, Tr::kThreads>(sm.q, q, q0, p.n, tid);
      load_rows_async<kBr, kD, Tr::kThreads>(sm.o, o, q0, p.n, tid);
      load_rows_async<kBr, kD, Tr::kThreads>(sm.dout, dout, q0, p.n, tid);
      load_rows_async<kBr, kD, Tr::kThreads>(sm.dq, dq, q0, p.n, tid);
      cp_async_commit();
      for (int r = tid; r < kBr; r += Tr::kThreads) {
        const bool ok = q0 + r < p.n;
        const float li = ok ? __ldcg(l + q0 + r) : 0.f;  // 0 also for a row that sees no key (causal)
        sm.row_sub[r] = li > 0.f ? __ldcg(m + q0 + r) * kLog2e : 0.f;
        sm.row_mul[r] = li > 0.f ? 1.f / li : 0.f;
      }
      cp_async_wait<0>();
      __syncthreads();  // (1) tiles in place

      // D_i = rowsum(dO_i ∘ O_i), one warp per row (rows past n are zero-filled: D = 0).
      for (int r = warp; r < kBr; r += kWarps) {
        float acc = 0.f;
        for (int c = 2 * lane; c < kD; c += 2 * kWarpSize) {
          const float2 a = unpack2<T>(smem_pair(sm.o, kStride, r, c));
          const float2 b = unpack2<T>(smem_pair(sm.dout, kStride, r, c));
          acc = fmaf(a.x, b.x, fmaf(a.y, b.y, acc));
        }
#pragma unroll
        for (int off = kWarpSize / 2; off > 0; off /= 2) acc += __shfl_xor_sync(kFullMask, acc, off);
        if (lane == 0) sm.row_d[r] = acc;
      }
      __syncthreads();  // (1b) D_i in place

      bwd_probs(sm, q0, kv0, p.n, p.n_kv, p.causal, p.window, scale_log2, warp, lane);
      __syncthreads();  // (2) P, dS in place

      bwd_accumulate_kv(sm, dk, dv, warp, lane);
      {
        float dqp[GQ::kMT][GQ::kNT][4];
        bwd_dq(sm, dqp, warp, lane);
        const int m0 = GQ::m0(warp), n0 = GQ::n0(warp);
#pragma unroll
        for (int mt = 0; mt < GQ::kMT; ++mt) {
#pragma unroll
          for (int nt = 0; nt < GQ::kNT; ++nt) {
#pragma unroll
            for (int h = 0; h < 2; ++h) {
              std::uint32_t& cell = smem_pair(sm.dq, kStride, m0 + frag_row(mt, 2 * h, lane), n0 + frag_col(nt, 0, lane));
              const float2 old = unpack2<T>(cell);
              cell = pack2<T>(fmaf(dqp[mt][nt][2 * h], p.scale, old.x), fmaf(dqp[mt][nt][2 * h + 1], p.scale, old.y));
            }
          }
        }
      }
      __syncthreads();  // (3) dQ_i updated
      store_rows<kBr, kD, Tr::kThreads>(dq, sm.dq, q0, p.n, tid);
    }

    __syncthreads();  // K_j, V_j free
    bwd_stage_kv(sm, dk, dv, p.scale, warp, lane);
    __syncthreads();
    store_rows<kBc, kD, Tr::kThreads>(static_cast<T*>(p.dk) + dkv_off, sm.k, kv0, p.n_kv, tid);
    store_rows<kBc, kD, Tr::kThreads>(static_cast<T*>(p.dv) + dkv_off, sm.v, kv0, p.n_kv, tid);
  }
}

}  // namespace iosim::gpu::kern

namespace iosim::gpu::detail {

template <class T, int D, int BR, int BC>
void launch_flash1_bwd(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream) {
  using Tr = kern::FlashBwdTraits<D, BR, BC, true>;
  launch_flash1_bwd_init(spec, buf, stream);
  const auto kernel = kern::flash1_bwd_kernel<T, Tr>;
  allow_dynamic_smem(kernel, Tr::kSmemBytes);
  const kern::Flash1BwdParams p{buf.device(Tensor::Q),
                                buf.device(Tensor::K),
                                buf.device(Tensor::V),
                                buf.device(Tensor::O),
                                buf.device(Tensor::dO),
                                device_ptr<const float>(buf, Tensor::l),
                                device_ptr<const float>(buf, Tensor::m),
                                buf.device(Tensor::dQ),
                                buf.grad_per_query_head(Tensor::dK),
                                buf.grad_per_query_head(Tensor::dV),
                                spec.n,
                                spec.n_kv,
                                1.f / std::sqrt(static_cast<float>(D)),
                                group_size(spec),
                                spec.causal,
                                spec.window};
  kernel<<<static_cast<unsigned>(spec.batch * spec.heads), Tr::kThreads, Tr::kSmemBytes, stream>>>(p);
  IOSIM_CUDA_CHECK_LAUNCH();
  launch_group_sum_kv_grads(spec, buf, stream);
}

/// The kernel as rows of the menu (cuda/kernels/menu.csv, menu_entry.cuh): the tiles bwd_tile_ok
/// takes, with bwd_warps' warp count, one stage.
struct Flash1BwdKernel {
  static constexpr Direction kPass = Direction::bwd;
  template <int D, int BR, int BC, int WARPS, int STAGES>
  static constexpr bool accepts() {
    return kern::bwd_tile_ok(true, D, BR, BC) && WARPS == kern::bwd_warps(D, BR, BC) && STAGES == 1;
  }
  template <int D, int BR, int BC, int, int>
  using Traits = kern::FlashBwdTraits<D, BR, BC, true>;
  template <class T, class Tr>
  static void launch(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream) {
    launch_flash1_bwd<T, Tr::kD, Tr::kBr, Tr::kBc>(spec, buf, stream);
  }
};

}  // namespace iosim::gpu::detail
