// flash2 backward — FlashAttention-2's backward pass (Dao 2023, arXiv 2307.08691, Algorithm 2).
//
// Given Q, K, V, O, dO and L = logsumexp(scale·Q Kᵀ) per row (saved by flash2 forward), computes dQ,
// dK, dV. Three kernels:
//   A (cuda/kernels/flash_aux.cu): reads O, dO; writes D = rowsum(dO ∘ O) (fp32) and dQacc = 0 (fp32).
//   B: grid = (⌈n_kv / B_c⌉, batch·heads), one block per K/V tile:
//        load K_j, V_j once; dK_j = dV_j = 0 (registers, fp32)
//        for each Q tile i (B_r rows): load Q_i, dO_i (element type), L_i, D_i (fp32)
//          S = scale·Q_i K_jᵀ; P = exp(S − L_i); dV_j += Pᵀ dO_i; dP = dO_i V_jᵀ; dS = P ∘ (dP − D_i)
//          dQacc_i += scale·dS K_j   (fp32 atomicAdd, result unused: RED; one 32-float row run per
//                                     warp instruction, staged through shared memory so that every
//                                     request covers whole 32-byte sectors)
//          dK_j += scale·dSᵀ Q_i
//        store dK_j, dV_j (element type, 16-byte stores)
//   C (cuda/kernels/flash_aux.cu): reads dQacc; writes dQ (element type).
// Kernel B per head: reads 2·n_kv·d + T_c·2·n·d elements and T_c·2·n floats, reduces T_c·n·d floats
// into dQacc, writes 2·n_kv·d elements. Causal, and with a sliding window of W keys (sim/core/mask.h):
// a block visits only the Q tiles whose rows see one of its keys, masking those an edge crosses.
//
// Design: warps tile each product (flash_bwd_common.cuh); S, dP in registers, P and dS staged through
// shared memory in the element type for the transposed products; K_j, V_j, Q_i, dO_i by 16-byte
// cp.async (L2 only, zero-filled past n / n_kv); three block barriers per Q tile.
//
// Run: iosim::gpu::detail::launch with KernelSpec{"flash2", Direction::bwd, …} after
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

struct Flash2BwdParams {
  const void* q;
  const void* k;
  const void* v;
  const void* dout;
  const float* lse;   ///< L
  const float* dsum;  ///< D
  float* dq_acc;
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
__global__ void __launch_bounds__(Tr::kThreads, 1) flash2_bwd_kernel(const Flash2BwdParams p) {
  constexpr int kD = Tr::kD, kBr = Tr::kBr, kBc = Tr::kBc;
  using GKV = typename Tr::GridKV;
  using GQ = typename Tr::GridQ;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const BwdSmem<T, Tr> sm(smem_raw);

  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid % kWarpSize;
  const int warp = tid / kWarpSize;
  const int kv0 = static_cast<int>(blockIdx.x) * kBc;
  const int bh = static_cast<int>(blockIdx.y);
  const std::int64_t q_off = static_cast<std::int64_t>(bh) * p.n * kD;
  const std::int64_t kv_off = static_cast<std::int64_t>(bh / p.group) * p.n_kv * kD;  // K, V
  const std::int64_t dkv_off = static_cast<std::int64_t>(bh) * p.n_kv * kD;           // dK, dV (per query head)
  const T* const q = static_cast<const T*>(p.q) + q_off;
  const T* const dout = static_cast<const T*>(p.dout) + q_off;
  float* const dq_acc = p.dq_acc + q_off;
  const float* const lse = p.lse + static_cast<std::int64_t>(bh) * p.n;
  const float* const dsum = p.dsum + static_cast<std::int64_t>(bh) * p.n;
  const float scale_log2 = p.scale * kLog2e;

  // Causal: the Q tiles before the first that sees key kv0 are skipped, and (window) those after the
  // last whose rows' windows reach the tile's last key (Mask::q_for_cols); K_j, V_j are not read when
  // no tile sees them (dK_j = dV_j = 0 still go out).
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
    // Q_i, dO_i, L_i, D_i. The previous step last read them before its second barrier.
    load_rows_async<kBr, kD, Tr::kThreads>(sm.q, q, q0, p.n, tid);
    load_rows_async<kBr, kD, Tr::kThreads>(sm.dout, dout, q0, p.n, tid);
    cp_async_commit();
    for (int r = tid; r < kBr; r += Tr::kThreads) {
      const bool ok = q0 + r < p.n;
      sm.row_sub[r] = ok ? __ldcg(lse + q0 + r) * kLog2e : 0.f;
      sm.row_mul[r] = 1.f;
      sm.row_d[r] = ok ? __ldcg(dsum + q0 + r) : 0.f;
    }
    cp_async_wait<0>();
    __syncthreads();  // (1) tiles and statistics in place

    bwd_probs(sm, q0, kv0, p.n, p.n_kv, p.causal, p.window, scale_log2, warp, lane);
    __syncthreads();  // (2) P, dS in place

    bwd_accumulate_kv(sm, dk, dv, warp, lane);
    {
      float dq[GQ::kMT][GQ::kNT][4];
      bwd_dq(sm, dq, warp, lane);
      const int m0 = GQ::m0(warp), n0 = GQ::n0(warp);
#pragma unroll
      for (int mt = 0; mt < GQ::kMT; ++mt) {
#pragma unroll
        for (int nt = 0; nt < GQ::kNT; ++nt) {
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int r = m0 + frag_row(mt, 2 * h, lane), c = n0 + frag_col(nt, 0, lane);
            *reinterpret_cast<float2*>(sm.acc + r * Tr::kAccStride + c) =
                make_float2(dq[mt][nt][2 * h] * p.scale, dq[mt][nt][2 * h + 1] * p.scale);
          }
        }
      }
    }
    __syncthreads();  // (3) scale·dS K_j staged

    // dQacc_i += staged tile: a warp instruction covers 32 consecutive floats of one row.
    for (int idx = tid; idx < kBr * kD; idx += Tr::kThreads) {
      const int r = idx / kD, c = idx % kD;
      if (q0 + r < p.n) atomicAdd(dq_acc + static_cast<std::int64_t>(q0 + r) * kD + c, sm.acc[r * Tr::kAccStride + c]);
    }
    // The next step overwrites Q_i, dO_i and the statistics (last read before (3) and (2)) and
    // writes P, dS and the staging tile only after its barrier (1).
  }

  __syncthreads();  // K_j, V_j free
  bwd_stage_kv(sm, dk, dv, p.scale, warp, lane);
  __syncthreads();
  store_rows<kBc, kD, Tr::kThreads>(static_cast<T*>(p.dk) + dkv_off, sm.k, kv0, p.n_kv, tid);
  store_rows<kBc, kD, Tr::kThreads>(static_cast<T*>(p.dv) + dkv_off, sm.v, kv0, p.n_kv, tid);
}

}  // namespace iosim::gpu::kern

namespace iosim::gpu::detail {

template <class T, class Tr>
void launch_flash2_bwd(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream) {
  launch_flash2_bwd_preprocess(spec, buf, stream);
  const auto kernel = kern::flash2_bwd_kernel<T, Tr>;
  allow_dynamic_smem(kernel, Tr::kSmemBytes);
  const kern::Flash2BwdParams p{buf.device(Tensor::Q),
                                buf.device(Tensor::K),
                                buf.device(Tensor::V),
                                buf.device(Tensor::dO),
                                device_ptr<const float>(buf, Tensor::L),
                                device_ptr<const float>(buf, Tensor::D),
                                device_ptr<float>(buf, Tensor::dQacc),
                                buf.grad_per_query_head(Tensor::dK),
                                buf.grad_per_query_head(Tensor::dV),
                                spec.n,
                                spec.n_kv,
                                1.f / std::sqrt(static_cast<float>(Tr::kD)),
                                group_size(spec),
                                spec.causal,
                                spec.window};
  const dim3 grid(static_cast<unsigned>((spec.n_kv + Tr::kBc - 1) / Tr::kBc),
                  static_cast<unsigned>(spec.batch * spec.heads));
  kernel<<<grid, Tr::kThreads, Tr::kSmemBytes, stream>>>(p);
  IOSIM_CUDA_CHECK_LAUNCH();
  launch_flash2_bwd_convert(spec, buf, stream);
  launch_group_sum_kv_grads(spec, buf, stream);
}

/// The kernel as rows of the menu (cuda/kernels/menu.csv, menu_entry.cuh): the tiles and warp counts
/// flash2_bwd_variant_ok takes, one stage.
struct Flash2BwdKernel {
  static constexpr Direction kPass = Direction::bwd;
  template <int D, int BR, int BC, int WARPS, int STAGES>
  static constexpr bool accepts() {
    return kern::flash2_bwd_variant_ok(D, BR, BC, WARPS) && STAGES == 1;
  }
  template <int D, int BR, int BC, int WARPS, int>
  using Traits = kern::FlashBwdTraits<D, BR, BC, false, WARPS>;
  template <class T, class Tr>
  static void launch(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream) {
    launch_flash2_bwd<T, Tr>(spec, buf, stream);
  }
};

}  // namespace iosim::gpu::detail
