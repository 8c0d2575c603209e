// flash3 backward — FlashAttention-3's backward (Shah et al. 2024, arXiv 2407.08608, §3; the structure
// of Dao-AILab/flash-attention hopper/flash_bwd_kernel_sm90.h with SdP_swapAB and the dK/dV products
// register-sourced) for sm_90a, on CUTLASS's CuTe. Layouts: flash3_bwd.h.
//
// Three kernels (four with grouped K/V heads), as flash2's backward (cuda/kernels/flash2_bwd.cuh):
//   preprocess, one warp per row:  D = rowsum(dO ∘ O) (fp32), dQacc = 0
//   main, grid (⌈n_kv / B_c⌉, heads), one block per K/V tile j, 384 threads:
//     producer (warpgroup 0, 24 registers): one thread issues every TMA copy — K_j and V_j once (one
//       mbarrier counting their bytes), then for each Q tile i that sees K_j: Q_i with L_i (one stage
//       of a PipelineTmaAsync ring) and dO_i with D_i (a second ring), `kStages` stages each. L_i and
//       D_i come by 1-D TMA boxes of B_r + 4 floats over the flat [heads · n] arrays (from the
//       16-byte boundary at or below the tile's first row).
//     consumers (warpgroups 1 and 2, 240 registers): each owns B_c / 2 = 64 keys of K_j, V_j and their
//       dK_j, dV_j accumulators (fp32, registers, held across the Q loop). Per Q tile:
//         Sᵀ = K_j Q_iᵀ and dPᵀ = V_j dO_iᵀ   wgmma SS (M = this warpgroup's 64 keys, N = B_r rows)
//         Pᵀ = exp2(Sᵀ·τ·log2e − L·log2e), dSᵀ = Pᵀ ∘ (dPᵀ − D)   on the accumulators (L, D by warp
//                                                 shuffles from B_r / 32 values a lane; masks only in edge tiles)
//         dV_j += Pᵀ dO_i                        wgmma RS, issued before the dS barrier (Pᵀ from registers,
//                                                 dO_i viewed transposed, MN-major, in its TMA tile)
//         dS → shared memory (element type, rows contiguous, hand-swizzled 32-bit stores), one barrier
//                                                 of the 256 consumer threads
//         dQ_i = dS K_j                          wgmma SS (both warpgroups share it: split along d or rows)
//         dK_j += dSᵀ Q_i                        wgmma RS (dSᵀ from registers, Q_i as dO_i)
//         τ·dQ_i → shared memory (fp32, rows contiguous, 16-byte chunks permuted by row: dq_swizzle); one thread of the
//           producer's warp 1 adds the tile into dQacc by one bulk reduce-add (cp.reduce.async.bulk
//           .add.f32), so dQacc's rows carry the same chunk permutation, which the convert kernel undoes
//       and at the end dK_j ← τ·dK_j, dV_j out (element type; per query head with grouped K/V heads).
//   convert: dQ = dQacc in the element type (un-permuting each row's 16-byte chunks); group sum: dK, dV = Σ over each group of dKexp, dVexp.
// Causal: a K/V tile's loop starts at the first Q tile that sees it; with a sliding window it ends at the
// last Q tile whose window reaches it; masks only in tiles that cross the diagonal, the window's lower
// edge, n or n_kv.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "cuda/kernels/flash3/flash3_bwd.h"
#include "cuda/kernels/flash3/flash3_fwd.cuh"

namespace iosim::gpu::flash3 {

/// The first Q tile (of B_r rows) whose rows see key kv0; tiles before it see none of K/V tile kv0.
__host__ __device__ constexpr int first_q_tile(bool causal, int kv0, int n, int n_kv, int br) {
  if (!causal) return 0;
  const int row = kv0 - (n_kv - n);  // the first row that sees key kv0
  return row <= 0 ? 0 : row / br;
}

/// One past the last Q tile (of B_r rows) whose rows see a key of the K/V tile [kv0, kv0 + B_c) under a
/// sliding window of `window` keys: rows past r = c + W − 1 − (n_kv − n) no longer see its last key c
/// (⌈n / B_r⌉ without a window; at most the first Q tile when no row sees the tile), as
/// Mask::q_for_cols counts them.
__host__ __device__ constexpr int q_tiles_end(int window, int kv0, int bc, int n, int n_kv, int br) {
  const int tiles = (n + br - 1) / br;
  if (window <= 0) return tiles;
  const int last_key = (kv0 + bc < n_kv ? kv0 + bc : n_kv) - 1;
  const int end_row = last_key - (n_kv - n) + window;  // rows < end_row see a key ≤ last_key
  if (end_row <= 0) return 0;
  return end_row >= n ? tiles : (end_row + br - 1) / br;
}

namespace detail {

using namespace cute;
using cute::Tensor;  // not iosim::Tensor (cuda/kernels/tensors.h), which the kernel menu's instantiation files see too

template <class Element_, int D, int BR, int BC = 128, int STAGES = 2>
struct BwdTraits {
  using Element = Element_;
  static constexpr int kD = D, kBr = BR, kBc = BC, kStages = STAGES;
  static constexpr int kConsumerWGs = 2;
  static_assert(BC == 64 * kConsumerWGs, "64 keys per consumer warpgroup");
  static_assert(D == 64 || D == 128, "head dimension 64 or 128");
  static_assert(BR == 64 || BR == 128, "B_r 64 or 128");
  static constexpr int kConsumerThreads = kConsumerWGs * cutlass::NumThreadsPerWarpGroup;
  static constexpr int kThreads = kConsumerThreads + cutlass::NumThreadsPerWarpGroup;
  static constexpr int kProducerRegs = 24;
  static constexpr int kConsumerRegs = 240;

  using AtomLayoutKV = Layout<Shape<Int<kConsumerWGs>, _1, _1>>;
  // Sᵀ = K Qᵀ, dPᵀ = V dOᵀ: M = keys, N = rows, K = d; both operands K-major in shared memory.
  using TiledMmaSdP = decltype(make_tiled_mma(
      GMMA::ss_op_selector<Element, Element, float, Shape<Int<BC>, Int<BR>, Int<D>>>(), AtomLayoutKV{}));
  // dV += Pᵀ dO, dK += dSᵀ Q: M = keys, N = d, K = rows; A from registers, B MN-major.
  using TiledMmadKV = decltype(make_tiled_mma(
      GMMA::rs_op_selector<Element, Element, float, Shape<Int<BC>, Int<D>, Int<BR>>, GMMA::Major::K, GMMA::Major::MN>(),
      AtomLayoutKV{}));
  // dQ = dS K: M = rows, N = d, K = keys; dS MN-major (rows contiguous), K viewed as Kᵀ (MN-major).
  // B_r = 128: each warpgroup its 64 rows; B_r = 64: each warpgroup half of d.
  static constexpr int kdQWgM = BR / 64;
  static constexpr int kdQWgN = kConsumerWGs / kdQWgM;
  using TiledMmadQ = decltype(make_tiled_mma(
      GMMA::ss_op_selector<Element, Element, float, Shape<_64, Int<D / kdQWgN>, Int<BC>>, GMMA::Major::MN,
                           GMMA::Major::MN>(),
      Layout<Shape<Int<kdQWgM>, Int<kdQWgN>, _1>>{}));

  // Shared tiles. Q, dO (stages) and K, V as TMA brings them (rows of d contiguous, K-major, 128-byte
  // swizzle); the same bytes viewed transposed (d × rows, MN-major: the atoms tile the same way, as
  // flash3_fwd's Vᵀ) for the B operands of dV, dK (dOᵀ, Qᵀ) and dQ (Kᵀ).
  using SmemAtomQ = decltype(cutlass::gemm::collective::detail::ss_smem_selector<GMMA::Major::K, Element, Int<BR>, Int<D>>());
  using SmemLayoutQ = decltype(tile_to_shape(SmemAtomQ{}, Shape<Int<BR>, Int<D>, Int<STAGES>>{}));
  using SmemAtomQt = decltype(cutlass::gemm::collective::detail::ss_smem_selector<GMMA::Major::MN, Element, Int<D>, Int<BR>>());
  using SmemLayoutQt = decltype(tile_to_shape(SmemAtomQt{}, Shape<Int<D>, Int<BR>, Int<STAGES>>{}, Step<_2, _1, _3>{}));
  using SmemAtomK = decltype(cutlass::gemm::collective::detail::ss_smem_selector<GMMA::Major::K, Element, Int<BC>, Int<D>>());
  using SmemLayoutK = decltype(tile_to_shape(SmemAtomK{}, Shape<Int<BC>, Int<D>>{}));
  using SmemAtomKt = decltype(cutlass::gemm::collective::detail::ss_smem_selector<GMMA::Major::MN, Element, Int<D>, Int<BC>>());
  using SmemLayoutKt = decltype(tile_to_shape(SmemAtomKt{}, Shape<Int<D>, Int<BC>>{}, Step<_2, _1>{}));
  // dS (rows × keys), rows contiguous, two buffers (one per Q-tile parity).
  using SmemAtomdS = decltype(cutlass::gemm::collective::detail::ss_smem_selector<GMMA::Major::MN, Element, Int<BR>, Int<BC>>());
  using SmemLayoutdS = decltype(tile_to_shape(SmemAtomdS{}, Shape<Int<BR>, Int<BC>, _2>{}, Step<_2, _1, _3>{}));
  static_assert(cosize_v<SmemLayoutQ> == cosize_v<SmemLayoutQt>);
  static_assert(cosize_v<SmemLayoutK> == cosize_v<SmemLayoutKt>);

  using GShape = Shape<int32_t, int32_t, int32_t>;
  using GStride = Stride<int64_t, _1, int64_t>;
  using GShape1 = Shape<int32_t>;
  using GStride1 = Stride<_1>;
  // One stage of L or D: a box of B_r + 4 floats from the 16-byte boundary at or below the tile's first
  // row (a TMA box must start 16-byte aligned in the flat [heads · n] array: rows start at
  // bh · n + q0, and n need not be a multiple of 4); a stage every kRowStride floats (128-byte aligned).
  static constexpr int kRowBox = BR + 4;
  static constexpr int kRowStride = BR + 32;
  using SmemLayoutRow = Layout<Shape<Int<kRowBox>>>;
  using TmaQ = decltype(make_tma_copy(SM90_TMA_LOAD{},
                                      make_tensor(make_gmem_ptr(static_cast<const Element*>(nullptr)), GShape{}, GStride{}),
                                      take<0, 2>(SmemLayoutQ{}), Shape<Int<BR>, Int<D>>{}, _1{}));
  using TmaK = decltype(make_tma_copy(SM90_TMA_LOAD{},
                                      make_tensor(make_gmem_ptr(static_cast<const Element*>(nullptr)), GShape{}, GStride{}),
                                      SmemLayoutK{}, Shape<Int<BC>, Int<D>>{}, _1{}));
  using TmaRow = decltype(make_tma_copy(SM90_TMA_LOAD{},
                                        make_tensor(make_gmem_ptr(static_cast<const float*>(nullptr)), GShape1{}, GStride1{}),
                                        SmemLayoutRow{}, Shape<Int<kRowBox>>{}, _1{}));
  static constexpr std::uint32_t kBytesQ = BR * D * sizeof(Element) + kRowBox * sizeof(float);  // Q_i + L_i (or dO_i + D_i)
  static constexpr std::uint32_t kBytesKV = 2 * BC * D * sizeof(Element);

  using Pipeline = cutlass::PipelineTmaAsync<STAGES>;
  using PipelineState = typename Pipeline::PipelineState;

  struct SharedStorage {
    cute::array_aligned<Element, cute::cosize_v<SmemLayoutQ>, 1024> q;
    cute::array_aligned<Element, cute::cosize_v<SmemLayoutQ>, 1024> dout;
    cute::array_aligned<Element, cute::cosize_v<SmemLayoutK>, 1024> k;
    cute::array_aligned<Element, cute::cosize_v<SmemLayoutK>, 1024> v;
    cute::array_aligned<Element, cute::cosize_v<SmemLayoutdS>, 1024> ds;
    cute::array_aligned<float, BR * D, 128> dq;  // τ·dQ_i, fp32, 16-byte chunks XOR-swizzled by row (dq_index)
    cute::array_aligned<float, kRowStride * STAGES, 128> lse;
    cute::array_aligned<float, kRowStride * STAGES, 128> dsum;
    alignas(16) cutlass::arch::ClusterTransactionBarrier barrier_kv;
    alignas(16) typename Pipeline::SharedStorage pipe_q;
    alignas(16) typename Pipeline::SharedStorage pipe_do;
  };
  static constexpr int kSmemBytes = static_cast<int>(sizeof(SharedStorage));

  struct Params {
    TmaQ tma_q;
    TmaQ tma_do;
    TmaK tma_k;
    TmaK tma_v;
    TmaRow tma_lse;
    TmaRow tma_dsum;
    GShape shape_q;   // (n, d, heads)
    GShape shape_k;   // (n_kv, d, kv_heads)
    GShape1 shape_row;  // (heads · n)
    float* dq_acc;
    Element* dk;  // per query head when group > 1 (dKexp), else dK
    Element* dv;
    int n;
    int n_kv;
    int group;
    float scale;
    float scale_log2;
    bool causal;
    int window;  // with causal: row r also needs key c > r + n_kv − n − window; 0: none
  };
};

/// The consumers' barrier between dS into shared memory and the dQ wgmma that reads it.
inline constexpr std::uint32_t kdSBarrier = 0;
/// dQ_i in shared memory (consumers arrive, the producer's warp 1 waits), and read out again by the
/// bulk reduce (the other way round): 256 consumer threads and the 32 of producer warp 1.
inline constexpr std::uint32_t kdQFull = 1;
inline constexpr std::uint32_t kdQEmpty = 2;
inline constexpr int kdQThreads = 256 + 32;

/// The 16-byte chunk permutation of row r of the fp32 dQ tile: chunk k holds dQ's chunk k XOR
/// dq_swizzle(r % 8), dq_swizzle(r) = 2·(r % 4) + (r / 4) % 2. A warp's 64-bit stores of accumulators
/// (8 rows × 2 adjacent chunks, done a half-warp — 4 rows — at a time) land on 32 distinct banks in each
/// half: the 4 rows' chunk pairs 2·nk, 2·nk + 1 go to the distinct pairs nk XOR (r % 4). (An XOR by
/// r % 8 alone puts two rows of a half-warp on the same banks: ncu counted 2 extra
/// wavefronts per store with it.)
__host__ __device__ __forceinline__ int dq_swizzle(int r) { return ((r & 3) << 1) | ((r >> 2) & 1); }

/// Index of (row, col) in the fp32 dQ tile: rows of D floats, 16-byte chunks permuted by dq_swizzle.
/// The permutation stays inside a row: the tile's rows are contiguous, and the bulk reduce adds them
/// into dQacc as they are, so dQacc's rows carry the same permutation (by the row's index in its head:
/// Q tiles start at multiples of 8); the convert kernel undoes it (dq_acc_column).
template <int D>
__host__ __device__ __forceinline__ int dq_index(int r, int c) {
  return r * D + ((((c >> 2) ^ dq_swizzle(r & 7))) << 2) + (c & 3);
}

/// The column of dQacc's row r (r: the row's index in its head) that holds dQ(r, c).
__host__ __device__ __forceinline__ int dq_acc_column(int r, int c) { return ((((c >> 2) ^ dq_swizzle(r & 7))) << 2) + (c & 3); }

/// The hand-swizzled dS stores. For consumer thread tidx (0 … 255), its Sᵀ accumulator value
/// v = j + 2·mi + 4·nk (wgmma's C layout: key 64·wg + 16·warp + 8·mi + lane / 4, row 8·nk + 2·(lane % 4) + j)
/// lies at element ds_offset(ds_thread_base(tidx), nk, mi) of a dS buffer (SmemLayoutdS: 64 × 8 atoms,
/// rows contiguous, 128-byte swizzle: the 16-byte chunk (row % 64) / 8 XOR key % 8; atoms keys first).
/// The chunk bits of the base are key % 8 and nothing else lands on them, so a compile-time nk XORs in.
/// Checked against CuTe's layout by flash3_layout_test.
__host__ __device__ __forceinline__ int ds_thread_base(int tidx) {
  const int lane = tidx % 32, w = (tidx / 32) % 4, cwg = tidx / 128;
  const int kk = lane >> 2;
  return (8 * cwg + 2 * w) * 512 + kk * 64 + (kk << 3) + 2 * (lane & 3);
}
template <int BC>
__host__ __device__ __forceinline__ int ds_offset(int base, int nk, int mi) {
  return (base ^ ((nk & 7) << 3)) + (nk >> 3) * BC * 64 + mi * 512;
}
/// The hand-swizzled dQ stores: the thread's dQ accumulator value v = j + 2·mi + 4·nk is (r0 + 8·mi,
/// c0 + 8·nk + j) with (r0, c0) its value 0's coordinates, at dq_offset<D>(dq_index<D>(r0, c0), nk, mi)
/// (+ j): r0 % 8 = lane / 4 for every value (one dq_swizzle), and 2·nk (< 16) adds to
/// c0 / 4 = 16·x + (lane % 4) / 2 as an XOR.
template <int D>
__host__ __device__ __forceinline__ int dq_offset(int base, int nk, int mi) {
  return (base ^ (nk << 3)) + mi * 8 * D;
}

/// One thread's bulk reduce of `bytes` of shared memory into global memory (fp32 add; the
/// cp.async.bulk bulk_group mechanism: commit and wait with cute::tma_store_arrive / tma_store_wait).
__device__ __forceinline__ void bulk_reduce_add_f32(float* gmem, const float* smem, std::uint32_t bytes) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  const auto s = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem));
  asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;" ::"l"(gmem), "r"(s), "r"(bytes)
               : "memory");
#endif
}

template <class Tr>
__global__ void __launch_bounds__(Tr::kThreads, 1) bwd_kernel(const __grid_constant__ typename Tr::Params p) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using Element = typename Tr::Element;
  using Pipeline = typename Tr::Pipeline;
  using PipelineState = typename Tr::PipelineState;
  constexpr int kBr = Tr::kBr, kBc = Tr::kBc, kD = Tr::kD;
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  auto& ss = *reinterpret_cast<typename Tr::SharedStorage*>(smem_raw);

  const int warp_idx = cutlass::canonical_warp_idx_sync();
  const int wg = cutlass::canonical_warp_group_idx();
  const int n_block = static_cast<int>(blockIdx.x);
  const int kv0 = n_block * kBc;
  const int bh = static_cast<int>(blockIdx.y);
  const int bh_kv = bh / p.group;
  // Q tiles [first_q, q_end) visit this K/V tile: (causal) from the first whose rows see key kv0, (window)
  // up to the last whose rows still see its last key.
  const int first_q = first_q_tile(p.causal, kv0, p.n, p.n_kv, kBr);
  const int q_end = q_tiles_end(p.window, kv0, kBc, p.n, p.n_kv, kBr);

  if (warp_idx == 0 && cute::elect_one_sync()) {
    cute::prefetch_tma_descriptor(p.tma_q.get_tma_descriptor());
    cute::prefetch_tma_descriptor(p.tma_do.get_tma_descriptor());
    cute::prefetch_tma_descriptor(p.tma_k.get_tma_descriptor());
    cute::prefetch_tma_descriptor(p.tma_v.get_tma_descriptor());
    cute::prefetch_tma_descriptor(p.tma_lse.get_tma_descriptor());
    cute::prefetch_tma_descriptor(p.tma_dsum.get_tma_descriptor());
    ss.barrier_kv.init(1);
  }
  typename Pipeline::Params pp;
  pp.role = wg == 0 ? Pipeline::ThreadCategory::Producer : Pipeline::ThreadCategory::Consumer;
  pp.is_leader = threadIdx.x == 0;
  pp.num_consumers = Tr::kConsumerWGs;  // one arrival per consumer warpgroup (flash3_fwd.cuh)
  pp.transaction_bytes = Tr::kBytesQ;
  Pipeline pipe_q(ss.pipe_q, pp, Shape<_1, _1, _1>{});
  Pipeline pipe_do(ss.pipe_do, pp, Shape<_1, _1, _1>{});
  __syncthreads();

  Tensor sQ = make_tensor(make_smem_ptr(ss.q.data()), typename Tr::SmemLayoutQ{});
  Tensor sdO = make_tensor(make_smem_ptr(ss.dout.data()), typename Tr::SmemLayoutQ{});
  Tensor sQt = make_tensor(make_smem_ptr(ss.q.data()), typename Tr::SmemLayoutQt{});
  Tensor sdOt = make_tensor(make_smem_ptr(ss.dout.data()), typename Tr::SmemLayoutQt{});
  Tensor sK = make_tensor(make_smem_ptr(ss.k.data()), typename Tr::SmemLayoutK{});
  Tensor sV = make_tensor(make_smem_ptr(ss.v.data()), typename Tr::SmemLayoutK{});
  Tensor sKt = make_tensor(make_smem_ptr(ss.k.data()), typename Tr::SmemLayoutKt{});
  Tensor sdS = make_tensor(make_smem_ptr(ss.ds.data()), typename Tr::SmemLayoutdS{});
  // (box element, stage); row r of the tile is element r + row_shift.
  auto row_layout = make_layout(make_shape(Int<Tr::kRowBox>{}, Int<Tr::kStages>{}), make_stride(_1{}, Int<Tr::kRowStride>{}));
  Tensor sL = make_tensor(make_smem_ptr(ss.lse.data()), row_layout);
  Tensor sDs = make_tensor(make_smem_ptr(ss.dsum.data()), row_layout);
  const int row0 = bh * p.n;          // this head's rows in the flat L, D
  const int row_shift = row0 & 3;     // the box of a tile starts at row0 + q0 − row_shift (q0 % 4 = 0)

  if (wg == 0) {  // ---- producer ----
    cutlass::arch::warpgroup_reg_dealloc<Tr::kProducerRegs>();
    if (threadIdx.x == 0 && first_q < q_end) {
      Tensor gK = local_tile(p.tma_k.get_tma_tensor(p.shape_k)(_, _, bh_kv), Shape<Int<kBc>, Int<kD>>{},
                             make_coord(n_block, _0{}));
      Tensor gV = local_tile(p.tma_v.get_tma_tensor(p.shape_k)(_, _, bh_kv), Shape<Int<kBc>, Int<kD>>{},
                             make_coord(n_block, _0{}));
      Tensor gQ = local_tile(p.tma_q.get_tma_tensor(p.shape_q)(_, _, bh), Shape<Int<kBr>, Int<kD>>{},
                             make_coord(_, _0{}));  // (B_r, d, tiles)
      Tensor gdO = local_tile(p.tma_do.get_tma_tensor(p.shape_q)(_, _, bh), Shape<Int<kBr>, Int<kD>>{},
                              make_coord(_, _0{}));
      Tensor mL = p.tma_lse.get_tma_tensor(p.shape_row);
      Tensor mDs = p.tma_dsum.get_tma_tensor(p.shape_row);
      auto cta_k = p.tma_k.get_slice(_0{});
      auto cta_v = p.tma_v.get_slice(_0{});
      auto cta_q = p.tma_q.get_slice(_0{});
      auto cta_do = p.tma_do.get_slice(_0{});
      auto cta_l = p.tma_lse.get_slice(_0{});
      auto cta_ds = p.tma_dsum.get_slice(_0{});
      Tensor tQgQ = group_modes<0, 3>(cta_q.partition_S(gQ));  // (TMA, tiles)
      Tensor tQsQ = group_modes<0, 3>(cta_q.partition_D(sQ));  // (TMA, stages)
      Tensor tdOgdO = group_modes<0, 3>(cta_do.partition_S(gdO));
      Tensor tdOsdO = group_modes<0, 3>(cta_do.partition_D(sdO));
      Tensor tLsL = group_modes<0, 2>(cta_l.partition_D(sL));  // (TMA, stages)
      Tensor tDsD = group_modes<0, 2>(cta_ds.partition_D(sDs));

      using BarrierT = cutlass::arch::ClusterTransactionBarrier::ValueType;
      ss.barrier_kv.arrive_and_expect_tx(Tr::kBytesKV);
      copy(p.tma_k.with(reinterpret_cast<BarrierT&>(ss.barrier_kv), 0), cta_k.partition_S(gK), cta_k.partition_D(sK));
      copy(p.tma_v.with(reinterpret_cast<BarrierT&>(ss.barrier_kv), 0), cta_v.partition_S(gV), cta_v.partition_D(sV));
      PipelineState write = cutlass::make_producer_start_state<Pipeline>();
      for (int i = first_q; i < q_end; ++i) {
        pipe_q.producer_acquire(write);
        copy(p.tma_q.with(*pipe_q.producer_get_barrier(write), 0), tQgQ(_, i), tQsQ(_, write.index()));
        const int box0 = row0 + i * kBr - row_shift;  // 16-byte aligned
        Tensor gL = local_tile(domain_offset(make_coord(box0), mL), Shape<Int<Tr::kRowBox>>{}, make_coord(0));
        Tensor gDs = local_tile(domain_offset(make_coord(box0), mDs), Shape<Int<Tr::kRowBox>>{}, make_coord(0));
        copy(p.tma_lse.with(*pipe_q.producer_get_barrier(write), 0), group_modes<0, 2>(cta_l.partition_S(gL)),
             tLsL(_, write.index()));
        pipe_do.producer_acquire(write);
        copy(p.tma_do.with(*pipe_do.producer_get_barrier(write), 0), tdOgdO(_, i), tdOsdO(_, write.index()));
        copy(p.tma_dsum.with(*pipe_do.producer_get_barrier(write), 0), group_modes<0, 2>(cta_ds.partition_S(gDs)),
             tDsD(_, write.index()));
        ++write;
      }
    } else if (warp_idx == 1 && first_q < q_end) {
      // Warp 1: dQacc_i += the consumers' τ·dQ_i, one bulk reduce-add per tile by one thread (the
      // tile's rows contiguous in shared memory and in dQacc: dq_index), then the buffer is free once
      // the bulk copy has read it.
      const bool leader = cute::elect_one_sync();
      for (int i = first_q; i < q_end; ++i) {
        const int q0 = i * kBr;
        const int rows = p.n - q0 < kBr ? p.n - q0 : kBr;
        cutlass::arch::NamedBarrier::sync(kdQThreads, kdQFull);
        if (leader) {
          cutlass::arch::fence_view_async_shared();  // the consumers' generic stores before the async proxy reads
          bulk_reduce_add_f32(p.dq_acc + (static_cast<std::int64_t>(bh) * p.n + q0) * kD, ss.dq.data(),
                              static_cast<std::uint32_t>(rows * kD * sizeof(float)));
          cute::tma_store_arrive();
          if (i + 1 < q_end) {
            cute::tma_store_wait<0>();  // read out: the buffer may be written again
          } else {
            asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");  // the last: complete, writes done
          }
        }
        __syncwarp();
        if (i + 1 < q_end) cutlass::arch::NamedBarrier::arrive(kdQThreads, kdQEmpty);
      }
    }
  } else {  // ---- consumers ----
    cutlass::arch::warpgroup_reg_alloc<Tr::kConsumerRegs>();
    const int tidx = static_cast<int>(threadIdx.x) - cutlass::NumThreadsPerWarpGroup;  // 0 … 255
    const int cwg = tidx / cutlass::NumThreadsPerWarpGroup;
    typename Tr::TiledMmaSdP mma_sdp;
    typename Tr::TiledMmadKV mma_dkv;
    typename Tr::TiledMmadQ mma_dq;
    auto thr_sdp = mma_sdp.get_thread_slice(tidx);
    auto thr_dkv = mma_dkv.get_thread_slice(tidx);
    auto thr_dq = mma_dq.get_thread_slice(tidx);
    auto wg_sdp = mma_sdp.get_slice(cwg * cutlass::NumThreadsPerWarpGroup);
    auto wg_dkv = mma_dkv.get_slice(cwg * cutlass::NumThreadsPerWarpGroup);
    auto wg_dq = mma_dq.get_slice(cwg * cutlass::NumThreadsPerWarpGroup);

    Tensor tdVrdV = partition_fragment_C(mma_dkv, Shape<Int<kBc>, Int<kD>>{});
    Tensor tdKrdK = partition_fragment_C(mma_dkv, Shape<Int<kBc>, Int<kD>>{});
    clear(tdVrdV);
    clear(tdKrdK);

    if (first_q < q_end) {
      Tensor tSrK = wg_sdp.partition_fragment_A(sK);    // descriptors
      Tensor tSrV = wg_sdp.partition_fragment_A(sV);
      Tensor tSrQ = wg_sdp.partition_fragment_B(sQ);    // (…, stages)
      Tensor tSrdO = wg_sdp.partition_fragment_B(sdO);  // (…, stages)
      Tensor tdVrdOt = wg_dkv.partition_fragment_B(sdOt);  // (…, stages)
      Tensor tdKrQt = wg_dkv.partition_fragment_B(sQt);    // (…, stages)
      Tensor tdQrdS = wg_dq.partition_fragment_A(sdS);     // (…, 2 buffers)
      Tensor tdQrKt = wg_dq.partition_fragment_B(sKt);

      // (key, row) of this thread's Sᵀ accumulators (edge tiles' masks only); the dS and dQ stores'
      // addresses are recomputed from one base each (hand-swizzled, ds_offset / dq_offset).
      Tensor tScS = thr_sdp.partition_C(make_identity_tensor(Shape<Int<kBc>, Int<kBr>>{}));
      Tensor tScS_rc = make_tensor(tScS.data(), rowcol(tScS.layout()));
      const int offset = p.n_kv - p.n;
      const float sl2 = p.scale_log2;
      constexpr float kLog2e = 1.4426950408889634f;
      const int lane = tidx % 32;
      // L and D: row 8·nk + 2·(lane % 4) + j of a tile, needed by the 8 quads of a warp alike, comes by a
      // shuffle from lane 8·(nk % 4) + 2·(lane % 4) + j, which loaded rows lane + 32·e (e < kRowVals =
      // B_r / 32; e = nk / 4, a constant of the unrolled loop): B_r / 32 loads a lane instead of 2·B_r / 8,
      // each of 32 consecutive floats (no bank conflicts).
      constexpr int kRowVals = kBr / 32;
      const int row_lane = lane;  // + 32·e
      static_assert(decltype(size<1>(tScS_rc))::value == 2 * kBr / 8, "Sᵀ columns: (j, nk)");

      auto consumer_wait = [](Pipeline& pipe, const PipelineState& st) {
        auto token = pipe.consumer_try_wait(st);
        pipe.consumer_wait(st, token);
      };
      ss.barrier_kv.wait(0);
      PipelineState read;
      CUTLASS_PRAGMA_NO_UNROLL
      for (int i = first_q; i < q_end; ++i) {
        const int q0 = i * kBr;
        const int st = read.index();
        const int buf = i & 1;
        Tensor tSrS = partition_fragment_C(mma_sdp, Shape<Int<kBc>, Int<kBr>>{});
        Tensor tdPrdP = partition_fragment_C(mma_sdp, Shape<Int<kBc>, Int<kBr>>{});
        consumer_wait(pipe_q, read);
        gemm_async<true>(mma_sdp, tSrK, tSrQ(_, _, _, st), tSrS);
        float lv[kRowVals];  // L·log2e of this lane's rows
        CUTLASS_PRAGMA_UNROLL
        for (int e = 0; e < kRowVals; ++e) lv[e] = sL(row_lane + 32 * e + row_shift, st) * kLog2e;
        consumer_wait(pipe_do, read);
        gemm_async<true>(mma_sdp, tSrV, tSrdO(_, _, _, st), tdPrdP);
        // Edge tiles: past n_kv or n, the diagonal, or (window) keys at or before some row's r + offset − W.
        const bool masked = (kv0 + kBc > p.n_kv) || (q0 + kBr > p.n) || (p.causal && kv0 + kBc - 1 > q0 + offset) ||
                            (p.window > 0 && kv0 <= q0 + kBr - 1 + offset - p.window);
        Tensor s_rc = make_tensor(tSrS.data(), rowcol(tSrS.layout()));
        Tensor dp_rc = make_tensor(tdPrdP.data(), rowcol(tdPrdP.layout()));
        // Pᵀ = exp2(Sᵀ·τ·log2e − L·log2e); the mask (P = 0) only in edge tiles.
        auto softmax = [&](auto masked_c) {
          CUTLASS_PRAGMA_UNROLL
          for (int ni = 0; ni < size<1>(s_rc); ++ni) {
            const int nk = ni / 2, j = ni % 2;
            const float lse2 = __shfl_sync(0xffffffffu, lv[nk / 4], 8 * (nk % 4) + 2 * (lane & 3) + j);
            CUTLASS_PRAGMA_UNROLL
            for (int mi = 0; mi < size<0>(s_rc); ++mi) {
              float e = exp2_ftz(fmaf(s_rc(mi, ni), sl2, -lse2));
              if constexpr (decltype(masked_c)::value) {
                const int key = kv0 + get<0>(tScS_rc(mi, ni));
                const int r = q0 + get<1>(tScS_rc(mi, ni));
                if (key >= p.n_kv || r >= p.n || (p.causal && key > r + offset) ||
                    (p.window > 0 && key <= r + offset - p.window)) {
                  e = 0.f;
                }
              }
              s_rc(mi, ni) = e;
            }
          }
        };
        warpgroup_wait<1>();  // Sᵀ is in
        if (masked) {
          softmax(cute::true_type{});
        } else {
          softmax(cute::false_type{});
        }
        float dv[kRowVals];  // D of this lane's rows
        CUTLASS_PRAGMA_UNROLL
        for (int e = 0; e < kRowVals; ++e) dv[e] = sDs(row_lane + 32 * e + row_shift, st);
        warpgroup_wait<0>();  // dPᵀ is in
        CUTLASS_PRAGMA_UNROLL
        for (int ni = 0; ni < size<1>(s_rc); ++ni) {
          const int nk = ni / 2, j = ni % 2;
          const float dd = __shfl_sync(0xffffffffu, dv[nk / 4], 8 * (nk % 4) + 2 * (lane & 3) + j);
          CUTLASS_PRAGMA_UNROLL
          for (int mi = 0; mi < size<0>(s_rc); ++mi) dp_rc(mi, ni) = s_rc(mi, ni) * (dp_rc(mi, ni) - dd);
        }
        // Pᵀ in the element type (Sᵀ's fp32 registers free from here), the A operand of dV += Pᵀ dO_i,
        // issued now: it runs while dS is converted, stored and waited for.
        constexpr int kN = decltype(size(tSrS))::value;
        cutlass::NumericArrayConverter<Element, float, kN> conv;
        Tensor tdVrP = make_tensor<Element>(as_a_operand(tSrS.layout()));
        *reinterpret_cast<cutlass::Array<Element, kN>*>(tdVrP.data()) =
            conv(*reinterpret_cast<const cutlass::Array<float, kN>*>(tSrS.data()));
        gemm_async<false>(mma_dkv, tdVrP, tdVrdOt(_, _, _, st), tdVrdV);
        // dSᵀ in the element type: the A operand of dK, and (its 32-bit pairs, rows r, r + 1 of one key)
        // the dS tile in shared memory.
        Tensor tdKrdS = make_tensor<Element>(as_a_operand(tdPrdP.layout()));
        *reinterpret_cast<cutlass::Array<Element, kN>*>(tdKrdS.data()) =
            conv(*reinterpret_cast<const cutlass::Array<float, kN>*>(tdPrdP.data()));
        {
          const std::uint32_t* pairs = reinterpret_cast<const std::uint32_t*>(tdKrdS.data());
          Element* const ds = ss.ds.data() + buf * (kBr * kBc);
          const int base = ds_thread_base(tidx);
          CUTLASS_PRAGMA_UNROLL
          for (int v = 0; v < kN; v += 2) {
            const int mi = (v / 2) % 2, nk = v / 4;
            *reinterpret_cast<std::uint32_t*>(ds + ds_offset<kBc>(base, nk, mi)) = pairs[v / 2];
          }
        }
        cutlass::arch::fence_view_async_shared();  // generic-proxy stores before the wgmma reads them
        cutlass::arch::NamedBarrier::sync(Tr::kConsumerThreads, kdSBarrier);

        Tensor tdQrdQ = partition_fragment_C(mma_dq, Shape<Int<kBr>, Int<kD>>{});
        gemm_async<true>(mma_dq, tdQrdS(_, _, _, buf), tdQrKt, tdQrdQ);
        gemm_async<false>(mma_dkv, tdKrdS, tdKrQt(_, _, _, st), tdKrdK);
        warpgroup_wait<1>();  // dV and dQ are in
        warpgroup_fence_operand(tdVrP);
        // τ·dQ_i into shared memory for the producer's warp 1 (once its bulk reduce has read dQ_{i−1}).
        if (i > first_q) cutlass::arch::NamedBarrier::sync(kdQThreads, kdQEmpty);
        {
          // The thread's value 0's coordinates, recomputed here (not kept across the loop).
          Tensor tdQcdQ = thr_dq.partition_C(make_identity_tensor(Shape<Int<kBr>, Int<kD>>{}));
          const int base = dq_index<kD>(get<0>(tdQcdQ(0)), get<1>(tdQcdQ(0)));
          float* const dq = ss.dq.data();
          CUTLASS_PRAGMA_UNROLL
          for (int v = 0; v < size(tdQrdQ); v += 2) {
            const int mi = (v / 2) % 2, nk = v / 4;
            *reinterpret_cast<float2*>(dq + dq_offset<kD>(base, nk, mi)) = make_float2(tdQrdQ(v) * p.scale, tdQrdQ(v + 1) * p.scale);
          }
        }
        cutlass::arch::fence_view_async_shared();  // generic-proxy stores before the bulk reduce reads them
        cutlass::arch::NamedBarrier::arrive(kdQThreads, kdQFull);
        warpgroup_wait<0>();  // dK is in: Q_i, dO_i free
        warpgroup_fence_operand(tdKrdS);
        if (tidx % cutlass::NumThreadsPerWarpGroup == 0) {
          pipe_q.consumer_release(read);
          pipe_do.consumer_release(read);
        }
        ++read;
      }
    }

    // dK ← τ·dK, dV out, pairs of columns, rows past n_kv left alone.
    Tensor tdKVcdKV = thr_dkv.partition_C(make_identity_tensor(Shape<Int<kBc>, Int<kD>>{}));
    const std::int64_t head = p.group > 1 ? bh : bh_kv;
    Element* const dk = p.dk + (head * p.n_kv + kv0) * kD;
    Element* const dv = p.dv + (head * p.n_kv + kv0) * kD;
    const int keys = p.n_kv - kv0;
    CUTLASS_PRAGMA_UNROLL
    for (int e = 0; e < size(tdKrdK); e += 2) {
      const int r = get<0>(tdKVcdKV(e)), c = get<1>(tdKVcdKV(e));
      if (r < keys) {
        cutlass::Array<Element, 2> pk, pv;
        pk[0] = static_cast<Element>(tdKrdK(e) * p.scale);
        pk[1] = static_cast<Element>(tdKrdK(e + 1) * p.scale);
        pv[0] = static_cast<Element>(tdVrdV(e));
        pv[1] = static_cast<Element>(tdVrdV(e + 1));
        *reinterpret_cast<cutlass::Array<Element, 2>*>(dk + r * kD + c) = pk;
        *reinterpret_cast<cutlass::Array<Element, 2>*>(dv + r * kD + c) = pv;
      }
    }
  }
#endif
}

/// D = rowsum(dO ∘ O) in fp32 and dQacc = 0: one warp per row.
template <class Element, int D>
__global__ void bwd_preprocess_kernel(const Element* o, const Element* dout, float* dsum, float* dq_acc, long rows) {
  const long row = static_cast<long>(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
  const int lane = static_cast<int>(threadIdx.x % 32);
  if (row >= rows) return;
  float acc = 0.f;
  for (int c = lane; c < D; c += 32) {
    acc += static_cast<float>(o[row * D + c]) * static_cast<float>(dout[row * D + c]);
    dq_acc[row * D + c] = 0.f;
  }
  for (int m = 16; m > 0; m /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, m);
  if (lane == 0) dsum[row] = acc;
}

/// dQ = dQacc in the element type, 4 columns a thread (one 16-byte chunk of dQacc): dQacc's rows carry
/// the main kernel's shared-memory permutation (dq_index: chunk c / 4 XOR the row's index in its head % 8).
template <class Element, int D>
__global__ void bwd_convert_kernel(const float* dq_acc, Element* dq, long chunks, int n) {
  constexpr int kChunks = D / 4;
  for (long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x; i < chunks; i += static_cast<long>(gridDim.x) * blockDim.x) {
    const long row = i / kChunks;
    const int c = static_cast<int>(i % kChunks) * 4;
    const int r = static_cast<int>(row % n);
    const float4 v = *reinterpret_cast<const float4*>(dq_acc + row * D + dq_acc_column(r, c));
    cutlass::Array<Element, 4> out;
    out[0] = static_cast<Element>(v.x);
    out[1] = static_cast<Element>(v.y);
    out[2] = static_cast<Element>(v.z);
    out[3] = static_cast<Element>(v.w);
    *reinterpret_cast<cutlass::Array<Element, 4>*>(dq + row * D + c) = out;
  }
}

/// dK, dV [kv_heads, n_kv, d] = Σ over each group of the per-query-head dKexp, dVexp.
template <class Element>
__global__ void bwd_group_sum_kernel(const Element* dk_exp, const Element* dv_exp, Element* dk, Element* dv, long per_head,
                                     long count, int group) {
  for (long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += static_cast<long>(gridDim.x) * blockDim.x) {
    const long h = i / per_head, e = i % per_head;
    float sk = 0.f, sv = 0.f;
    for (int g = 0; g < group; ++g) {
      sk += static_cast<float>(dk_exp[(h * group + g) * per_head + e]);
      sv += static_cast<float>(dv_exp[(h * group + g) * per_head + e]);
    }
    dk[i] = static_cast<Element>(sk);
    dv[i] = static_cast<Element>(sv);
  }
}

template <class Tr>
cudaError_t launch_bwd_main(const BwdArgs& a, cudaStream_t stream) {
  using Element = typename Tr::Element;
  if (a.n <= 0 || a.n_kv <= 0 || a.heads <= 0 || a.kv_heads <= 0 || a.heads % a.kv_heads != 0) return cudaErrorInvalidValue;
  const int group = a.heads / a.kv_heads;
  if (group > 1 && (a.dk_exp == nullptr || a.dv_exp == nullptr)) return cudaErrorInvalidValue;
  constexpr int kD = Tr::kD;
  typename Tr::GShape shape_q = make_shape(a.n, kD, a.heads);
  typename Tr::GShape shape_k = make_shape(a.n_kv, kD, a.kv_heads);
  typename Tr::GShape1 shape_row = make_shape(static_cast<int32_t>(static_cast<long>(a.heads) * a.n));
  typename Tr::GStride stride_q = make_stride(static_cast<int64_t>(kD), _1{}, static_cast<int64_t>(a.n) * kD);
  typename Tr::GStride stride_k = make_stride(static_cast<int64_t>(kD), _1{}, static_cast<int64_t>(a.n_kv) * kD);
  Tensor mQ = make_tensor(make_gmem_ptr(static_cast<const Element*>(a.q)), shape_q, stride_q);
  Tensor mdO = make_tensor(make_gmem_ptr(static_cast<const Element*>(a.dout)), shape_q, stride_q);
  Tensor mK = make_tensor(make_gmem_ptr(static_cast<const Element*>(a.k)), shape_k, stride_k);
  Tensor mV = make_tensor(make_gmem_ptr(static_cast<const Element*>(a.v)), shape_k, stride_k);
  Tensor mL = make_tensor(make_gmem_ptr(a.lse), shape_row, typename Tr::GStride1{});
  Tensor mDs = make_tensor(make_gmem_ptr(static_cast<const float*>(a.dsum)), shape_row, typename Tr::GStride1{});
  const float scale = 1.f / std::sqrt(static_cast<float>(kD));
  auto tile_q = Shape<Int<Tr::kBr>, Int<kD>>{};
  auto tile_k = Shape<Int<Tr::kBc>, Int<kD>>{};
  typename Tr::Params p{
      make_tma_copy(SM90_TMA_LOAD{}, mQ, take<0, 2>(typename Tr::SmemLayoutQ{}), tile_q, _1{}),
      make_tma_copy(SM90_TMA_LOAD{}, mdO, take<0, 2>(typename Tr::SmemLayoutQ{}), tile_q, _1{}),
      make_tma_copy(SM90_TMA_LOAD{}, mK, typename Tr::SmemLayoutK{}, tile_k, _1{}),
      make_tma_copy(SM90_TMA_LOAD{}, mV, typename Tr::SmemLayoutK{}, tile_k, _1{}),
      make_tma_copy(SM90_TMA_LOAD{}, mL, typename Tr::SmemLayoutRow{}, Shape<Int<Tr::kRowBox>>{}, _1{}),
      make_tma_copy(SM90_TMA_LOAD{}, mDs, typename Tr::SmemLayoutRow{}, Shape<Int<Tr::kRowBox>>{}, _1{}),
      shape_q,
      shape_k,
      shape_row,
      a.dq_acc,
      static_cast<Element*>(group > 1 ? a.dk_exp : a.dk),
      static_cast<Element*>(group > 1 ? a.dv_exp : a.dv),
      a.n,
      a.n_kv,
      group,
      scale,
      scale * 1.4426950408889634f,
      a.causal,
      a.window};
  const auto kernel = bwd_kernel<Tr>;
  if (const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Tr::kSmemBytes);
      e != cudaSuccess) {
    return e;
  }
  const dim3 grid(static_cast<unsigned>((a.n_kv + Tr::kBc - 1) / Tr::kBc), static_cast<unsigned>(a.heads));
  kernel<<<grid, Tr::kThreads, Tr::kSmemBytes, stream>>>(p);
  return cudaGetLastError();
}

template <class Tr>
cudaError_t launch_bwd(const BwdArgs& a, cudaStream_t stream) {
  using Element = typename Tr::Element;
  if (a.n <= 0 || a.n_kv <= 0 || a.heads <= 0 || a.kv_heads <= 0 || a.heads % a.kv_heads != 0) return cudaErrorInvalidValue;
  constexpr int kD = Tr::kD;
  const long rows = static_cast<long>(a.heads) * a.n;
  bwd_preprocess_kernel<Element, kD><<<static_cast<unsigned>((rows + 7) / 8), 256, 0, stream>>>(
      static_cast<const Element*>(a.o), static_cast<const Element*>(a.dout), a.dsum, a.dq_acc, rows);
  if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  if (const cudaError_t e = launch_bwd_main<Tr>(a, stream); e != cudaSuccess) return e;
  const long chunks = rows * (kD / 4);
  const auto blocks = static_cast<unsigned>(std::min<long>((chunks + 255) / 256, 132L * 16));
  bwd_convert_kernel<Element, kD><<<blocks, 256, 0, stream>>>(a.dq_acc, static_cast<Element*>(a.dq), chunks, a.n);
  if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  const int group = a.heads / a.kv_heads;
  if (group > 1) {
    const long per_head = static_cast<long>(a.n_kv) * kD;
    const long kv_count = static_cast<long>(a.kv_heads) * per_head;
    const auto b2 = static_cast<unsigned>(std::min<long>((kv_count + 255) / 256, 132L * 16));
    bwd_group_sum_kernel<Element><<<b2, 256, 0, stream>>>(static_cast<const Element*>(a.dk_exp),
                                                          static_cast<const Element*>(a.dv_exp), static_cast<Element*>(a.dk),
                                                          static_cast<Element*>(a.dv), per_head, kv_count, group);
    if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

}  // namespace detail

template <class Element, DType kType, int D, int BR, int BC = 128, int STAGES = 2>
BwdKernel bwd_kernel_entry() {
  using Tr = detail::BwdTraits<Element, D, BR, BC, STAGES>;
  return BwdKernel{kType, D, BR, BC, STAGES, Tr::kThreads, Tr::kSmemBytes, &detail::launch_bwd<Tr>, &detail::launch_bwd_main<Tr>};
}

}  // namespace iosim::gpu::flash3
