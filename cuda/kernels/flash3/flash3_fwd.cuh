// flash3 forward — FlashAttention-3 (Shah et al. 2024, arXiv 2407.08608) for sm_90a, on CUTLASS's CuTe.
//
// Computes O = softmax(scale · Q Kᵀ) V and L = rowwise logsumexp(scale · Q Kᵀ) per head, with the
// layouts of cuda/kernels/flash3/flash3_fwd.h. Grid = (⌈n / B_r⌉, heads): one block per Q tile of B_r =
// 128 rows (causal: the longest tiles, those of the last rows, launched first).
//
// A block is three warpgroups (384 threads), specialised:
//   producer (warpgroup 0, 24 registers after setmaxnreg): one thread issues every TMA copy — Q once
//     (an mbarrier with its byte count), then K_j and V_j into a ring of `kStages` shared-memory stages,
//     each guarded by CUTLASS's PipelineTmaAsync (a full barrier the TMA completes, an empty barrier
//     thread 0 of each consumer warpgroup releases); order K_0, K_1, V_0, K_2, V_1, …, V_last, the order the consumers need them.
//   consumers (warpgroups 1 and 2, 240 registers each): each owns B_r / 2 = 64 rows of Q, S, P and O.
//     S = Q K_jᵀ by wgmma with both operands in shared memory (SS); online softmax on the fp32
//     accumulators (exp2, the row max and sum over the 4 lanes of a quad); P converted in registers to
//     the element type and fed to O += P V_j as the register A operand (RS wgmma, V as the MN-major B
//     operand straight from its TMA tile).
// What overlaps:
//   * TMA with everything (up to kStages tiles of K and of V in flight);
//   * ping-pong: two named barriers order the consumers' GEMM issues — warpgroup 1 issues its GEMMs of
//     step j, lets warpgroup 2 issue its own, and does its softmax while the tensor cores run warpgroup
//     2's GEMMs (and the other way round);
//   * inside a warpgroup (FA3's intra-warpgroup overlap): step j issues S_j = Q K_jᵀ and O += P_{j−1}
//     V_{j−1} together, waits for S_j only, and runs the softmax of S_j while P_{j−1} V_{j−1} is still on
//     the tensor cores.
// Epilogue: O / l from the accumulators into the warpgroup's own rows of the Q tile in shared memory,
// then to global memory in 16-byte chunks of whole rows (one store instruction per 32-byte sector, as
// FlashAttention-3 stages O); L from the lanes that hold column 0.
// Paged K/V (FwdArgs::block_table): where a page holds whole K/V tiles (page ≥ B_c), the producer issues
// each tile as one TMA copy from the page slot the block table names, as unpaged; where it does not, as
// B_c / 16 copies of 16 rows, each from its own page's slot (a page is 16 rows or more, so a copy never
// straddles two). The table entries of a tile are read before the producer waits for the tile's stage,
// so that their latency overlaps the wait. The consumers see the same stages as unpaged.
// HBM traffic per head as flash2's: Q, O once, K and V once per Q tile (⌈n / B_r⌉ times; causal: the
// tiles up to the diagonal; a sliding window: from the tile of the block's first row's first key), L once.
#pragma once

#include <cuda_runtime.h>

#include <bit>
#include <cmath>
#include <cstdint>

#include <cute/tensor.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/arch/reg_reconfig.h>
#include <cutlass/cutlass.h>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/numeric_conversion.h>
#include <cutlass/numeric_types.h>
#include <cutlass/pipeline/sm90_pipeline.hpp>

#include "cuda/kernels/flash3/flash3_fwd.h"

namespace iosim::gpu::flash3 {

/// The K/V tiles a block of B_r rows from q0 visits: all, or (causal) up to the last key its last row
/// sees; 0 when no row sees a key (n > n_kv). The formula of cuda/kernels/common.cuh's causal_kv_tiles.
__host__ __device__ constexpr int kv_tiles_of(bool causal, int q0, int n, int n_kv, int br, int bc) {
  const int tiles = (n_kv + bc - 1) / bc;
  if (!causal) return tiles;
  const int last_row = (q0 + br < n ? q0 + br : n) - 1;
  const int most = last_row + n_kv - n;
  if (most < 0) return 0;
  return most / bc + 1 < tiles ? most / bc + 1 : tiles;
}

/// The first K/V tile a block of rows from q0 visits under a sliding window of `window` keys (0: none,
/// tile 0): the tile of its first seeing row's first key, as Mask::kv_for_rows counts them. The formula
/// of cuda/kernels/common.cuh's window_first_kv_tile.
__host__ __device__ constexpr int first_kv_tile_of(int window, int q0, int n, int n_kv, int bc) {
  if (window <= 0) return 0;
  const int offset = n_kv - n;
  const int first_key = (q0 > -offset ? q0 : -offset) + offset - window + 1;
  return first_key > 0 ? first_key / bc : 0;
}

namespace detail {

using namespace cute;
using cute::Tensor;  // not iosim::Tensor (cuda/kernels/tensors.h), which the kernel menu's instantiation files see too

/// Tiles and types of one instantiation. Element: cutlass::half_t or cutlass::bfloat16_t.
template <class Element_, int D, int BR = 128, int BC = 128, int STAGES = 2, bool OVERLAP = true>
struct FwdTraits {
  using Element = Element_;
  static constexpr int kD = D, kBr = BR, kBc = BC, kStages = STAGES;
  /// FA3's schedule (ping-pong + intra-warpgroup overlap); false: the plain order S, softmax, P V per
  /// tile in each warpgroup, for comparison (what the overlap buys) and as a fallback.
  static constexpr bool kOverlap = OVERLAP;
  static constexpr int kConsumerWGs = BR / 64;  // one wgmma M = 64 slice each
  static_assert(kConsumerWGs == 2, "two consumer warpgroups (ping-pong)");
  static_assert(D == 64 || D == 128, "head dimension 64 or 128");
  static constexpr int kConsumerThreads = kConsumerWGs * cutlass::NumThreadsPerWarpGroup;
  static constexpr int kThreads = kConsumerThreads + cutlass::NumThreadsPerWarpGroup;
  static constexpr int kProducerRegs = 24;
  static constexpr int kConsumerRegs = 240;
  static_assert(kProducerRegs * 128 + kConsumerRegs * kConsumerThreads <= 65536, "register file");

  using TileQK = Shape<Int<BR>, Int<BC>, Int<D>>;  // S = Q Kᵀ: M = rows, N = keys, K = d
  using TilePV = Shape<Int<BR>, Int<D>, Int<BC>>;  // O = P V: M = rows, N = d, K = keys
  using AtomLayout = Layout<Shape<Int<kConsumerWGs>, _1, _1>>;
  using TiledMmaQK = decltype(make_tiled_mma(GMMA::ss_op_selector<Element, Element, float, TileQK>(), AtomLayout{}));
  using TiledMmaPV = decltype(make_tiled_mma(
      GMMA::rs_op_selector<Element, Element, float, TilePV, GMMA::Major::K, GMMA::Major::MN>(), AtomLayout{}));

  // Shared tiles, swizzled as the GMMA descriptors want them (128-byte swizzle for rows of ≥ 64
  // elements). V is kept as TMA brings it, rows of d contiguous; viewed as Vᵀ (d × keys, MN-major).
  using SmemAtomQ = decltype(cutlass::gemm::collective::detail::ss_smem_selector<GMMA::Major::K, Element, Int<BR>, Int<D>>());
  using SmemLayoutQ = decltype(tile_to_shape(SmemAtomQ{}, Shape<Int<BR>, Int<D>>{}));
  using SmemAtomK = decltype(cutlass::gemm::collective::detail::ss_smem_selector<GMMA::Major::K, Element, Int<BC>, Int<D>>());
  using SmemLayoutK = decltype(tile_to_shape(SmemAtomK{}, Shape<Int<BC>, Int<D>, Int<STAGES>>{}));
  using SmemAtomVt = decltype(cutlass::gemm::collective::detail::ss_smem_selector<GMMA::Major::MN, Element, Int<D>, Int<BC>>());
  using SmemLayoutVt = decltype(tile_to_shape(SmemAtomVt{}, Shape<Int<D>, Int<BC>, Int<STAGES>>{}, Step<_2, _1, _3>{}));

  // Global tensors as TMA sees them: (rows, d, heads) for Q and K, (d, rows, heads) for Vᵀ.
  using GShape = Shape<int32_t, int32_t, int32_t>;
  using GStride = Stride<int64_t, _1, int64_t>;
  using GStrideVt = Stride<_1, int64_t, int64_t>;
  using TmaQ = decltype(make_tma_copy(SM90_TMA_LOAD{},
                                      make_tensor(make_gmem_ptr(static_cast<const Element*>(nullptr)), GShape{}, GStride{}),
                                      SmemLayoutQ{}, Shape<Int<BR>, Int<D>>{}, _1{}));
  using TmaK = decltype(make_tma_copy(SM90_TMA_LOAD{},
                                      make_tensor(make_gmem_ptr(static_cast<const Element*>(nullptr)), GShape{}, GStride{}),
                                      take<0, 2>(SmemLayoutK{}), Shape<Int<BC>, Int<D>>{}, _1{}));
  using TmaV = decltype(make_tma_copy(SM90_TMA_LOAD{},
                                      make_tensor(make_gmem_ptr(static_cast<const Element*>(nullptr)), GShape{}, GStrideVt{}),
                                      take<0, 2>(SmemLayoutVt{}), Shape<Int<D>, Int<BC>>{}, _1{}));
  // Paged K/V with pages smaller than a tile: each K/V tile as BC / kPageBox copies of kPageBox rows, each
  // from the page slot its rows lie in (pages of whole tiles use TmaK and TmaV over the cache). The global tensors are the caches seen as (row in page, d, slot) for K and (d, row in page,
  // slot) for Vᵀ; a copy's shared-memory box is rows [b·kPageBox, (b + 1)·kPageBox) of a stage, i.e. the
  // stage layout composed with that slice (so the 128-byte swizzle of the whole tile: a box starts at a
  // multiple of 8 rows, 1024 bytes, where the swizzle pattern starts over).
  static constexpr int kBox = kPageBox;
  static_assert(BC % kBox == 0, "a K/V tile of whole page boxes");
  using SmemBoxK = decltype(composition(take<0, 2>(SmemLayoutK{}), make_tile(Layout<Int<kBox>>{}, Layout<Int<D>>{})));
  using SmemBoxVt =
      decltype(composition(take<0, 2>(SmemLayoutVt{}), make_tile(Layout<Int<D>>{}, Layout<Int<kBox>>{})));
  using GPtr = decltype(make_gmem_ptr(static_cast<const Element*>(nullptr)));
  using TmaKp = decltype(make_tma_copy(SM90_TMA_LOAD{}, make_tensor(GPtr{}, GShape{}, GStride{}), SmemBoxK{},
                                       Shape<Int<kBox>, Int<D>>{}, _1{}));
  using TmaVp = decltype(make_tma_copy(SM90_TMA_LOAD{}, make_tensor(GPtr{}, GShape{}, GStrideVt{}), SmemBoxVt{},
                                       Shape<Int<D>, Int<kBox>>{}, _1{}));
  static constexpr std::uint32_t kBytesQ = BR * D * sizeof(Element);
  static constexpr std::uint32_t kBytesKV = BC * D * sizeof(Element);  // one stage of K, or of V

  using Pipeline = cutlass::PipelineTmaAsync<STAGES>;
  using PipelineState = typename Pipeline::PipelineState;

  struct SharedStorage {
    cute::array_aligned<Element, cute::cosize_v<SmemLayoutQ>, 1024> q;
    cute::array_aligned<Element, cute::cosize_v<SmemLayoutK>, 1024> k;
    cute::array_aligned<Element, cute::cosize_v<SmemLayoutVt>, 1024> v;
    alignas(16) cutlass::arch::ClusterTransactionBarrier barrier_q;
    alignas(16) typename Pipeline::SharedStorage pipe_k;
    alignas(16) typename Pipeline::SharedStorage pipe_v;
  };
  static constexpr int kSmemBytes = static_cast<int>(sizeof(SharedStorage));

  struct Params {
    TmaQ tma_q;
    TmaK tma_k;
    TmaV tma_v;
    TmaKp tma_kp;  // paged, pages < B_c: K's cache by 16-row boxes (otherwise built over K, unused)
    TmaVp tma_vp;  // paged, pages < B_c: Vᵀ's cache
    TmaK tma_kt;   // paged, pages ≥ B_c: K's cache by whole tiles (otherwise built over K, unused)
    TmaV tma_vt;   // paged, pages ≥ B_c: Vᵀ's cache
    GShape shape_q;    // (n, d, heads)
    GShape shape_k;    // (n_kv, d, kv_heads)
    GShape shape_vt;   // (d, n_kv, kv_heads)
    GShape shape_kp;   // paged: (page, d, slots)
    GShape shape_vtp;  // paged: (d, page, slots)
    Element* o;
    float* lse;
    int n;
    int n_kv;
    int group;  // query heads per K/V head
    float scale;
    float scale_log2;
    bool causal;
    int window;  // with causal: row r also needs key c > r + n_kv − n − window; 0: none
    const int* block_table;  // paged: [kv head, page] slots; nullptr: contiguous K/V
    int page_shift;          // paged: log2 of the page size
    int pages;               // paged: pages of one K/V head
    int slots;               // paged: slots of the whole cache (kv_heads · pages)
  };
};

// Named barriers of the ping-pong (ids after CUTLASS's reserved ones): consumer warpgroup w waits on
// barrier w before issuing its GEMMs, and then arrives on the other's.
inline constexpr std::uint32_t kPingPongBarrier0 = 0;
/// The epilogue's: warpgroup w's 128 threads on barrier 2 + w, between O into shared memory and out.
inline constexpr std::uint32_t kEpilogueBarrier0 = 2;

/// Rows of S and O each consumer thread holds: r and r + 8 of its warp's 16. (Namespace scope: cicc
/// of CUDA 13.0 crashes on a lambda whose parameter type names a constexpr local of the kernel.)
inline constexpr int kRows = 2;

/// Issues the wgmma of one tile GEMM (every k-block) as one batch; zero_init starts from C = 0.
/// Waits for nothing: the caller waits with warpgroup_wait.
template <bool kZeroInit, class TiledMma, class TA, class TB, class TC>
__device__ __forceinline__ void gemm_async(TiledMma& mma, const TA& a, const TB& b, TC& c) {
  constexpr bool kRs = !cute::is_base_of<cute::GMMA::DescriptorIterator, typename TiledMma::FrgTypeA>::value;
  if constexpr (kRs) warpgroup_fence_operand(const_cast<TA&>(a));
  warpgroup_fence_operand(c);
  warpgroup_arrive();
  if constexpr (kZeroInit) mma.accumulate_ = GMMA::ScaleOut::Zero;
  CUTLASS_PRAGMA_UNROLL
  for (int kb = 0; kb < size<2>(a); ++kb) {
    cute::gemm(mma, a(_, _, kb), b(_, _, kb), c);
    mma.accumulate_ = GMMA::ScaleOut::One;
  }
  warpgroup_commit_batch();
  warpgroup_fence_operand(c);
  if constexpr (kRs) warpgroup_fence_operand(const_cast<TA&>(a));
}

/// The accumulator layout ((2, 2, N/8), MMA_M, MMA_N) of a wgmma tile viewed as (rows = (2, MMA_M),
/// cols = (2, N/8, MMA_N)): a thread's two rows (r, r + 8) and its columns of each.
template <class L>
CUTE_HOST_DEVICE auto rowcol(L l) {
  static_assert(decltype(rank(l))::value == 3 && decltype(rank<0>(l))::value == 3);
  return make_layout(make_layout(get<0, 1>(l), get<1>(l)), make_layout(get<0, 0>(l), get<0, 2>(l), get<2>(l)));
}

/// The same registers as the A operand of a 16-bit RS wgmma: ((2, 2, 2), MMA_M, (N/16, MMA_N)) — the C
/// layout of two adjacent n8 column groups is the A layout of one k16 step.
template <class L>
CUTE_HOST_DEVICE auto as_a_operand(L l) {
  auto split = logical_divide(get<0, 2>(l), Tile<_2>{});  // ((2, N/16))
  return make_layout(make_layout(get<0, 0>(l), get<0, 1>(l), get<0, 0>(split)), get<1>(l),
                     coalesce(make_layout(get<0, 1>(split), get<2>(l))));
}

/// 2^x by the MUFU unit, denormals flushed (one instruction; exp2f without fast-math adds the
/// denormal scaling around it). As cuda/kernels/common.cuh's fast_exp2.
__device__ __forceinline__ float exp2_ftz(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

__device__ __forceinline__ float quad_max(float x) {
  x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
  return fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
}
__device__ __forceinline__ float quad_sum(float x) {
  x += __shfl_xor_sync(0xffffffffu, x, 1);
  return x + __shfl_xor_sync(0xffffffffu, x, 2);
}

template <class Tr>
__global__ void __launch_bounds__(Tr::kThreads, 1) fwd_kernel(const __grid_constant__ typename Tr::Params p) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using Element = typename Tr::Element;
  using Pipeline = typename Tr::Pipeline;
  using PipelineState = typename Tr::PipelineState;
  constexpr int kBr = Tr::kBr, kBc = Tr::kBc;
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  auto& ss = *reinterpret_cast<typename Tr::SharedStorage*>(smem_raw);

  const int warp_idx = cutlass::canonical_warp_idx_sync();
  const int wg = cutlass::canonical_warp_group_idx();
  const int m_block = p.causal ? static_cast<int>(gridDim.x - 1 - blockIdx.x) : static_cast<int>(blockIdx.x);
  const int bh = static_cast<int>(blockIdx.y);
  const int bh_kv = bh / p.group;
  const int q0 = m_block * kBr;
  // K/V tiles [kv_first, kv_first + kv_tiles): (causal) up to the last its last row sees, (window) from
  // the one holding its first row's first key.
  const int kv_first = first_kv_tile_of(p.window, q0, p.n, p.n_kv, kBc);
  const int kv_end = kv_tiles_of(p.causal, q0, p.n, p.n_kv, kBr, kBc);
  const int kv_tiles = kv_end > kv_first ? kv_end - kv_first : 0;

  if (warp_idx == 0 && cute::elect_one_sync()) {
    cute::prefetch_tma_descriptor(p.tma_q.get_tma_descriptor());
    cute::prefetch_tma_descriptor(p.tma_k.get_tma_descriptor());
    cute::prefetch_tma_descriptor(p.tma_v.get_tma_descriptor());
    if (p.block_table != nullptr) {
      cute::prefetch_tma_descriptor(p.tma_kp.get_tma_descriptor());
      cute::prefetch_tma_descriptor(p.tma_vp.get_tma_descriptor());
      cute::prefetch_tma_descriptor(p.tma_kt.get_tma_descriptor());
      cute::prefetch_tma_descriptor(p.tma_vt.get_tma_descriptor());
    }
    ss.barrier_q.init(1);
  }
  typename Pipeline::Params pp;
  pp.role = wg == 0 ? Pipeline::ThreadCategory::Producer : Pipeline::ThreadCategory::Consumer;
  pp.is_leader = threadIdx.x == 0;  // the producer thread below
  // One arrival per consumer warpgroup releases a stage (its thread 0, after the warpgroup's wgmma
  // that read the stage completed): with a cluster of one CTA, PipelineTmaAsync counts
  // num_consumers arrivals, and every consumer thread arriving would be 256 per stage.
  pp.num_consumers = Tr::kConsumerWGs;
  pp.transaction_bytes = Tr::kBytesKV;
  Pipeline pipe_k(ss.pipe_k, pp, Shape<_1, _1, _1>{});  // warp 0 initialises the barriers
  Pipeline pipe_v(ss.pipe_v, pp, Shape<_1, _1, _1>{});
  __syncthreads();  // barrier initialisation visible to every thread

  Tensor sQ = make_tensor(make_smem_ptr(ss.q.data()), typename Tr::SmemLayoutQ{});
  Tensor sK = make_tensor(make_smem_ptr(ss.k.data()), typename Tr::SmemLayoutK{});
  Tensor sVt = make_tensor(make_smem_ptr(ss.v.data()), typename Tr::SmemLayoutVt{});

  if (wg == 0) {  // ---- producer ----
    cutlass::arch::warpgroup_reg_dealloc<Tr::kProducerRegs>();
    if (threadIdx.x == 0 && kv_tiles > 0) {
      Tensor gQ = local_tile(p.tma_q.get_tma_tensor(p.shape_q)(_, _, bh), Shape<Int<kBr>, Int<Tr::kD>>{},
                             make_coord(m_block, _0{}));  // (B_r, d)
      Tensor gK = local_tile(p.tma_k.get_tma_tensor(p.shape_k)(_, _, bh_kv), Shape<Int<kBc>, Int<Tr::kD>>{},
                             make_coord(_, _0{}));  // (B_c, d, tiles)
      Tensor gVt = local_tile(p.tma_v.get_tma_tensor(p.shape_vt)(_, _, bh_kv), Shape<Int<Tr::kD>, Int<kBc>>{},
                              make_coord(_0{}, _));  // (d, B_c, tiles)
      auto cta_q = p.tma_q.get_slice(_0{});
      auto cta_k = p.tma_k.get_slice(_0{});
      auto cta_v = p.tma_v.get_slice(_0{});
      Tensor tQgQ = cta_q.partition_S(gQ);
      Tensor tQsQ = cta_q.partition_D(sQ);
      Tensor tKgK = group_modes<0, 3>(cta_k.partition_S(gK));   // (TMA, tiles)
      Tensor tKsK = group_modes<0, 3>(cta_k.partition_D(sK));   // (TMA, stages)
      Tensor tVgV = group_modes<0, 3>(cta_v.partition_S(gVt));  // (TMA, tiles)
      Tensor tVsV = group_modes<0, 3>(cta_v.partition_D(sVt));  // (TMA, stages)

      ss.barrier_q.arrive_and_expect_tx(Tr::kBytesQ);
      copy(p.tma_q.with(reinterpret_cast<cutlass::arch::ClusterTransactionBarrier::ValueType&>(ss.barrier_q), 0),
           tQgQ, tQsQ);
      PipelineState write_k = cutlass::make_producer_start_state<Pipeline>();
      // Paged: this K/V head's row of the block table, and the cache as TMA sees it.
      const int* const table =
          p.block_table == nullptr ? nullptr : p.block_table + static_cast<std::int64_t>(bh_kv) * p.pages;
      Tensor mKp = p.tma_kp.get_tma_tensor(p.shape_kp);    // (page, d, slots)
      Tensor mVtp = p.tma_vp.get_tma_tensor(p.shape_vtp);  // (d, page, slots)
      Tensor mKt = p.tma_kt.get_tma_tensor(p.shape_kp);    // the same, by whole tiles
      Tensor mVtt = p.tma_vt.get_tma_tensor(p.shape_vtp);
      constexpr int kBox = Tr::kBox;
      constexpr int kBoxes = kBc / kBox;
      // Pages of whole tiles: one copy a tile, from the slot of the page that holds it.
      const bool page_tiles = (1 << p.page_shift) >= kBc;
      const int boxes = page_tiles ? 1 : kBoxes;
      const int rows = page_tiles ? kBc : kBox;
      // The copies of K/V tile `tile` (paged): copy b holds rows tile·B_c + b·rows …, within one page; its
      // page's slot and its box's index in the page (in boxes of `rows`). A box past the sequence's last
      // page (the last tile, pages smaller than B_c) gets slot `slots`, outside the cache: TMA fills it
      // with zeros, reads nothing, and still counts its bytes on the barrier; its keys are masked (past
      // n_kv) and its V rows, 0, add nothing.
      struct Boxes {
        int slot[kBoxes];
        int row_box[kBoxes];
      };
      auto boxes_of = [&](int tile) {
        Boxes bx{};
        CUTLASS_PRAGMA_UNROLL
        for (int b = 0; b < kBoxes; ++b) {
          if (b < boxes) {
            const int row = tile * kBc + b * rows;
            const int page = row >> p.page_shift;
            bx.slot[b] = page < p.pages ? __ldg(table + page) : p.slots;
            bx.row_box[b] = (row & ((1 << p.page_shift) - 1)) / rows;
          }
        }
        return bx;
      };
      // Step j of the block's run: K/V tile kv_first + j, whole or (paged) by boxes; the stage's barrier
      // expects the whole tile's bytes either way.
      auto load_k = [&](int j, const PipelineState& st) {
        if (table == nullptr) {
          pipe_k.producer_acquire(st);
          copy(p.tma_k.with(*pipe_k.producer_get_barrier(st), 0), tKgK(_, kv_first + j), tKsK(_, st.index()));
          return;
        }
        const Boxes bx = boxes_of(kv_first + j);
        pipe_k.producer_acquire(st);
        if (page_tiles) {
          auto cta = p.tma_kt.get_slice(_0{});
          Tensor g = local_tile(mKt(_, _, bx.slot[0]), Shape<Int<kBc>, Int<Tr::kD>>{}, make_coord(bx.row_box[0], _0{}));
          copy(p.tma_kt.with(*pipe_k.producer_get_barrier(st), 0), cta.partition_S(g),
               cta.partition_D(sK(_, _, st.index())));
          return;
        }
        auto cta = p.tma_kp.get_slice(_0{});
        CUTLASS_PRAGMA_UNROLL
        for (int b = 0; b < kBoxes; ++b) {
          Tensor g = local_tile(mKp(_, _, bx.slot[b]), Shape<Int<kBox>, Int<Tr::kD>>{}, make_coord(bx.row_box[b], _0{}));
          Tensor s = local_tile(sK(_, _, st.index()), Shape<Int<kBox>, Int<Tr::kD>>{}, make_coord(b, _0{}));
          copy(p.tma_kp.with(*pipe_k.producer_get_barrier(st), 0), cta.partition_S(g), cta.partition_D(s));
        }
      };
      auto load_v = [&](int j, const PipelineState& st) {
        if (table == nullptr) {
          pipe_v.producer_acquire(st);
          copy(p.tma_v.with(*pipe_v.producer_get_barrier(st), 0), tVgV(_, kv_first + j), tVsV(_, st.index()));
          return;
        }
        const Boxes bx = boxes_of(kv_first + j);
        pipe_v.producer_acquire(st);
        if (page_tiles) {
          auto cta = p.tma_vt.get_slice(_0{});
          Tensor g = local_tile(mVtt(_, _, bx.slot[0]), Shape<Int<Tr::kD>, Int<kBc>>{}, make_coord(_0{}, bx.row_box[0]));
          copy(p.tma_vt.with(*pipe_v.producer_get_barrier(st), 0), cta.partition_S(g),
               cta.partition_D(sVt(_, _, st.index())));
          return;
        }
        auto cta = p.tma_vp.get_slice(_0{});
        CUTLASS_PRAGMA_UNROLL
        for (int b = 0; b < kBoxes; ++b) {
          Tensor g = local_tile(mVtp(_, _, bx.slot[b]), Shape<Int<Tr::kD>, Int<kBox>>{}, make_coord(_0{}, bx.row_box[b]));
          Tensor s = local_tile(sVt(_, _, st.index()), Shape<Int<Tr::kD>, Int<kBox>>{}, make_coord(_0{}, b));
          copy(p.tma_vp.with(*pipe_v.producer_get_barrier(st), 0), cta.partition_S(g), cta.partition_D(s));
        }
      };
      load_k(0, write_k);
      for (int j = 1; j < kv_tiles; ++j) {
        const PipelineState write_v = write_k;  // V_{j−1} goes where K_{j−1} went
        ++write_k;
        load_k(j, write_k);
        load_v(j - 1, write_v);
      }
      load_v(kv_tiles - 1, write_k);
    }
  } else {  // ---- consumers ----
    cutlass::arch::warpgroup_reg_alloc<Tr::kConsumerRegs>();
    const int tidx = static_cast<int>(threadIdx.x) - cutlass::NumThreadsPerWarpGroup;  // 0 … 255
    const int cwg = tidx / cutlass::NumThreadsPerWarpGroup;                              // 0 or 1
    typename Tr::TiledMmaQK mma_qk;
    typename Tr::TiledMmaPV mma_pv;
    auto thr_qk = mma_qk.get_thread_slice(tidx);
    auto thr_pv = mma_pv.get_thread_slice(tidx);
    auto wg_qk = mma_qk.get_slice(cwg * cutlass::NumThreadsPerWarpGroup);
    auto wg_pv = mma_pv.get_slice(cwg * cutlass::NumThreadsPerWarpGroup);

    // Coordinates (row in the Q tile, column in the K/V tile) of this thread's S and O accumulators.
    Tensor tScS = thr_qk.partition_C(make_identity_tensor(Shape<Int<kBr>, Int<kBc>>{}));
    Tensor tScS_rc = make_tensor(tScS.data(), rowcol(tScS.layout()));
    Tensor tOcO = thr_pv.partition_C(make_identity_tensor(Shape<Int<kBr>, Int<Tr::kD>>{}));
    Tensor tOrO = partition_fragment_C(mma_pv, Shape<Int<kBr>, Int<Tr::kD>>{});
    Tensor tOrO_rc = make_tensor(tOrO.data(), rowcol(tOrO.layout()));
    static_assert(kRows == decltype(size<0>(tScS_rc))::value && kRows == decltype(size<0>(tOrO_rc))::value);
    float row_max[kRows];
    float row_sum[kRows];

    if (kv_tiles > 0) {
      Tensor tSrQ = wg_qk.partition_fragment_A(sQ);   // descriptors
      Tensor tSrK = wg_qk.partition_fragment_B(sK);   // (…, stages)
      Tensor tOrV = wg_pv.partition_fragment_B(sVt);  // (…, stages)
      const int offset = p.n_kv - p.n;
      const float sl2 = p.scale_log2;

      // Keys ≤ this are outside some row's window (the block's last row has the largest first key).
      const int window_edge = p.window > 0 ? q0 + kBr - 1 + offset - p.window : -1;
      // −inf for keys past n_kv, (causal) keys past a row's diagonal and (window) keys at or before
      // r + offset − W, in step j (K/V tile kv_first + j).
      auto mask = [&](auto& s, int j) {
        const int c0 = (kv_first + j) * kBc;
        const bool ragged = c0 + kBc > p.n_kv;
        const bool diagonal = p.causal && c0 + kBc - 1 > q0 + offset;
        if (ragged || diagonal || c0 <= window_edge) {
          CUTLASS_PRAGMA_UNROLL
          for (int i = 0; i < size(s); ++i) {
            const int r = q0 + get<0>(tScS(i));
            const int c = c0 + get<1>(tScS(i));
            if (c >= p.n_kv || (p.causal && c > r + offset) || (p.window > 0 && c <= r + offset - p.window)) {
              s(i) = -INFINITY;
            }
          }
        }
      };
      // Online softmax of one S tile: new row maxima, the factor α that rescales O and l, S ← exp2.
      // A row that has seen no key yet keeps max −inf and is exponentiated against 0 (P = 0, α = 1 … 0).
      auto softmax = [&](auto& s, bool first, float (&alpha)[kRows]) {
        Tensor s_rc = make_tensor(s.data(), rowcol(s.layout()));
        CUTLASS_PRAGMA_UNROLL
        for (int mi = 0; mi < kRows; ++mi) {
          float mx = first ? -INFINITY : row_max[mi];
          CUTLASS_PRAGMA_UNROLL
          for (int ni = 0; ni < size<1>(s_rc); ++ni) mx = fmaxf(mx, s_rc(mi, ni));
          mx = quad_max(mx);
          const float mx_scaled = mx == -INFINITY ? 0.f : mx * sl2;
          alpha[mi] = first ? 1.f : exp2_ftz(row_max[mi] * sl2 - mx_scaled);
          row_max[mi] = mx;
          float sum = 0.f;
          CUTLASS_PRAGMA_UNROLL
          for (int ni = 0; ni < size<1>(s_rc); ++ni) {
            const float e = exp2_ftz(s_rc(mi, ni) * sl2 - mx_scaled);
            s_rc(mi, ni) = e;
            sum += e;
          }
          row_sum[mi] = first ? sum : row_sum[mi] * alpha[mi] + sum;  // this thread's columns only
        }
      };
      auto rescale_o = [&](const float (&alpha)[kRows]) {
        CUTLASS_PRAGMA_UNROLL
        for (int mi = 0; mi < kRows; ++mi) {
          CUTLASS_PRAGMA_UNROLL
          for (int ni = 0; ni < size<1>(tOrO_rc); ++ni) tOrO_rc(mi, ni) *= alpha[mi];
        }
      };
      auto release = [&](Pipeline& pipe, const PipelineState& st) {
        if (tidx % cutlass::NumThreadsPerWarpGroup == 0) pipe.consumer_release(st);
      };
      auto consumer_wait = [](Pipeline& pipe, const PipelineState& st) {
        auto token = pipe.consumer_try_wait(st);
        pipe.consumer_wait(st, token);
      };
      // P in registers as the A operand of O += P V (element type).
      Tensor tSrS = partition_fragment_C(mma_qk, Shape<Int<kBr>, Int<kBc>>{});
      Tensor tOrP = make_tensor<Element>(as_a_operand(tSrS.layout()));
      auto convert_p = [&](const auto& s) {
        constexpr int kN = decltype(size(s))::value;
        cutlass::NumericArrayConverter<Element, float, kN> conv;
        *reinterpret_cast<cutlass::Array<Element, kN>*>(tOrP.data()) =
            conv(*reinterpret_cast<const cutlass::Array<float, kN>*>(s.data()));
      };
      ss.barrier_q.wait(0);
      PipelineState read;  // stage 0, phase 0
      float alpha[kRows];
      if constexpr (Tr::kOverlap) {
        const std::uint32_t my_barrier = kPingPongBarrier0 + static_cast<std::uint32_t>(cwg);
        const std::uint32_t other_barrier = kPingPongBarrier0 + static_cast<std::uint32_t>(1 - cwg);
        constexpr std::uint32_t kPairThreads = 2 * cutlass::NumThreadsPerWarpGroup;
        // Warpgroup 0 goes first: its own barrier starts with one warpgroup's arrival.
        if (cwg == 0) cutlass::arch::NamedBarrier::arrive(kPairThreads, my_barrier);
        // Tile 0: S_0, its softmax, P_0.
        consumer_wait(pipe_k, read);
        gemm_async<true>(mma_qk, tSrQ, tSrK(_, _, _, read.index()), tSrS);
        warpgroup_wait<0>();
        release(pipe_k, read);
        mask(tSrS, 0);
        softmax(tSrS, true, alpha);
        convert_p(tSrS);
        clear(tOrO);
        // Step j: S_j = Q K_jᵀ and O += P_{j−1} V_{j−1} issued together; softmax of S_j while P V runs.
        CUTLASS_PRAGMA_NO_UNROLL
        for (int j = 1; j < kv_tiles; ++j) {
          const PipelineState read_v = read;
          ++read;
          Tensor tSrS_j = partition_fragment_C(mma_qk, Shape<Int<kBr>, Int<kBc>>{});
          consumer_wait(pipe_k, read);
          cutlass::arch::NamedBarrier::sync(kPairThreads, my_barrier);
          gemm_async<true>(mma_qk, tSrQ, tSrK(_, _, _, read.index()), tSrS_j);
          consumer_wait(pipe_v, read_v);
          gemm_async<false>(mma_pv, tOrP, tOrV(_, _, _, read_v.index()), tOrO);
          cutlass::arch::NamedBarrier::arrive(kPairThreads, other_barrier);
          warpgroup_wait<1>();  // S_j is in
          release(pipe_k, read);
          mask(tSrS_j, j);
          softmax(tSrS_j, false, alpha);
          warpgroup_wait<0>();  // P_{j−1} V_{j−1} is in
          release(pipe_v, read_v);
          convert_p(tSrS_j);
          rescale_o(alpha);
        }
        // Balance the ping-pong: warpgroup 0's barrier got one arrival more than it waited for (its
        // own, at the start); waiting once more leaves both barriers empty when the block ends.
        if (cwg == 0) cutlass::arch::NamedBarrier::sync(kPairThreads, my_barrier);
        // Last: O += P_last V_last.
        consumer_wait(pipe_v, read);
        gemm_async<false>(mma_pv, tOrP, tOrV(_, _, _, read.index()), tOrO);
        warpgroup_wait<0>();
        release(pipe_v, read);
      } else {
        // The plain order, nothing overlapped inside the block but the TMA: S_j, softmax, P_j V_j.
        clear(tOrO);
        CUTLASS_PRAGMA_NO_UNROLL
        for (int j = 0; j < kv_tiles; ++j) {
          Tensor tSrS_j = partition_fragment_C(mma_qk, Shape<Int<kBr>, Int<kBc>>{});
          consumer_wait(pipe_k, read);
          gemm_async<true>(mma_qk, tSrQ, tSrK(_, _, _, read.index()), tSrS_j);
          warpgroup_wait<0>();
          release(pipe_k, read);
          mask(tSrS_j, j);
          softmax(tSrS_j, j == 0, alpha);
          rescale_o(alpha);
          convert_p(tSrS_j);
          consumer_wait(pipe_v, read);
          gemm_async<false>(mma_pv, tOrP, tOrV(_, _, _, read.index()), tOrO);
          warpgroup_wait<0>();
          release(pipe_v, read);
          ++read;
        }
      }
      // O / l (l summed over the quad's columns now).
      float inv[kRows];
      CUTLASS_PRAGMA_UNROLL
      for (int mi = 0; mi < kRows; ++mi) {
        row_sum[mi] = quad_sum(row_sum[mi]);
        inv[mi] = row_sum[mi] > 0.f ? 1.f / row_sum[mi] : 0.f;
      }
      rescale_o(inv);
    } else {
      clear(tOrO);
      CUTLASS_PRAGMA_UNROLL
      for (int mi = 0; mi < kRows; ++mi) {
        row_max[mi] = -INFINITY;
        row_sum[mi] = 0.f;
      }
    }

    // Epilogue: O through shared memory, out in 16-byte chunks of whole rows, so that each 32-byte
    // sector of O is written by one instruction (stored as the accumulator's column pairs, every
    // sector would take two: twice the L2 write requests). This warpgroup's 64 rows of the Q tile are
    // free: its last Q Kᵀ wgmma has completed, and the other warpgroup reads only its own rows.
    Element* const o = p.o + static_cast<std::int64_t>(bh) * p.n * Tr::kD;
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < size(tOrO); i += 2) {
      cutlass::Array<Element, 2> pair;  // columns c, c + 1 of one row (c even; flash3_layout_test)
      pair[0] = static_cast<Element>(tOrO(i));
      pair[1] = static_cast<Element>(tOrO(i + 1));
      *reinterpret_cast<cutlass::Array<Element, 2>*>(&sQ(get<0>(tOcO(i)), get<1>(tOcO(i)))) = pair;
    }
    cutlass::arch::NamedBarrier::sync(cutlass::NumThreadsPerWarpGroup, kEpilogueBarrier0 + static_cast<std::uint32_t>(cwg));
    constexpr int kChunkElems = 16 / sizeof(Element);
    constexpr int kChunksPerRow = Tr::kD / kChunkElems;
    constexpr int kWgRows = kBr / Tr::kConsumerWGs;
    CUTLASS_PRAGMA_UNROLL
    for (int k = tidx % cutlass::NumThreadsPerWarpGroup; k < kWgRows * kChunksPerRow; k += cutlass::NumThreadsPerWarpGroup) {
      const int row = cwg * kWgRows + k / kChunksPerRow;  // in the Q tile
      const int c0 = (k % kChunksPerRow) * kChunkElems;   // a chunk is contiguous in sQ (flash3_layout_test)
      if (q0 + row < p.n) {
        *reinterpret_cast<uint4*>(o + static_cast<std::int64_t>(q0 + row) * Tr::kD + c0) =
            *reinterpret_cast<const uint4*>(&sQ(row, c0));
      }
    }
    // L from the lanes holding column 0.
    CUTLASS_PRAGMA_UNROLL
    for (int mi = 0; mi < kRows; ++mi) {
      const int r = q0 + get<0>(tScS_rc(mi, 0));
      if (get<1>(tScS_rc(mi, 0)) == 0 && r < p.n) {
        p.lse[static_cast<std::int64_t>(bh) * p.n + r] =
            row_sum[mi] > 0.f ? row_max[mi] * p.scale + logf(row_sum[mi]) : INFINITY;
      }
    }
  }
#endif  // without sm_90a code the kernel does nothing (fwd_kernels() is only offered on sm_90 devices)
}

template <class Tr>
cudaError_t launch_fwd(const FwdArgs& a, cudaStream_t stream) {
  using Element = typename Tr::Element;
  if (a.n <= 0 || a.n_kv <= 0 || a.heads <= 0 || a.kv_heads <= 0 || a.heads % a.kv_heads != 0) {
    return cudaErrorInvalidValue;
  }
  constexpr int kD = Tr::kD;
  const bool paged = a.block_table != nullptr;
  if (paged) {
    const int page = a.page_size;
    if (page < Tr::kBox || (page & (page - 1)) != 0 || (page % Tr::kBc != 0 && Tr::kBc % page != 0) ||
        a.pages != (a.n_kv + page - 1) / page) {
      return cudaErrorInvalidValue;
    }
  }
  typename Tr::GShape shape_q = make_shape(a.n, kD, a.heads);
  typename Tr::GShape shape_k = make_shape(a.n_kv, kD, a.kv_heads);
  typename Tr::GShape shape_vt = make_shape(kD, a.n_kv, a.kv_heads);
  typename Tr::GStride stride_q = make_stride(static_cast<int64_t>(kD), _1{}, static_cast<int64_t>(a.n) * kD);
  typename Tr::GStride stride_k = make_stride(static_cast<int64_t>(kD), _1{}, static_cast<int64_t>(a.n_kv) * kD);
  typename Tr::GStrideVt stride_vt = make_stride(_1{}, static_cast<int64_t>(kD), static_cast<int64_t>(a.n_kv) * kD);
  Tensor mQ = make_tensor(make_gmem_ptr(static_cast<const Element*>(a.q)), shape_q, stride_q);
  Tensor mK = make_tensor(make_gmem_ptr(static_cast<const Element*>(a.k)), shape_k, stride_k);
  Tensor mVt = make_tensor(make_gmem_ptr(static_cast<const Element*>(a.v)), shape_vt, stride_vt);
  // Paged: the caches as (row in page, d, slot) and (d, row in page, slot). Unpaged: one box of K and V,
  // so that the descriptors are well formed; the kernel does not use them.
  const int page = paged ? a.page_size : Tr::kBox;
  const int slots = paged ? a.kv_heads * a.pages : 1;
  typename Tr::GShape shape_kp = make_shape(page, kD, slots);
  typename Tr::GShape shape_vtp = make_shape(kD, page, slots);
  typename Tr::GStride stride_kp = make_stride(static_cast<int64_t>(kD), _1{}, static_cast<int64_t>(page) * kD);
  typename Tr::GStrideVt stride_vtp = make_stride(_1{}, static_cast<int64_t>(kD), static_cast<int64_t>(page) * kD);
  Tensor mKp = make_tensor(make_gmem_ptr(static_cast<const Element*>(a.k)), shape_kp, stride_kp);
  Tensor mVtp = make_tensor(make_gmem_ptr(static_cast<const Element*>(a.v)), shape_vtp, stride_vtp);
  // Pages of whole tiles: the caches by tiles of B_c rows, one copy a tile (otherwise over K and V, unused).
  const bool page_tiles = paged && page >= Tr::kBc;
  const float scale = 1.f / std::sqrt(static_cast<float>(kD));
  typename Tr::Params p{
      make_tma_copy(SM90_TMA_LOAD{}, mQ, typename Tr::SmemLayoutQ{}, Shape<Int<Tr::kBr>, Int<kD>>{}, _1{}),
      make_tma_copy(SM90_TMA_LOAD{}, mK, take<0, 2>(typename Tr::SmemLayoutK{}), Shape<Int<Tr::kBc>, Int<kD>>{}, _1{}),
      make_tma_copy(SM90_TMA_LOAD{}, mVt, take<0, 2>(typename Tr::SmemLayoutVt{}), Shape<Int<kD>, Int<Tr::kBc>>{}, _1{}),
      make_tma_copy(SM90_TMA_LOAD{}, mKp, typename Tr::SmemBoxK{}, Shape<Int<Tr::kBox>, Int<kD>>{}, _1{}),
      make_tma_copy(SM90_TMA_LOAD{}, mVtp, typename Tr::SmemBoxVt{}, Shape<Int<kD>, Int<Tr::kBox>>{}, _1{}),
      make_tma_copy(SM90_TMA_LOAD{}, page_tiles ? mKp : mK, take<0, 2>(typename Tr::SmemLayoutK{}),
                    Shape<Int<Tr::kBc>, Int<kD>>{}, _1{}),
      make_tma_copy(SM90_TMA_LOAD{}, page_tiles ? mVtp : mVt, take<0, 2>(typename Tr::SmemLayoutVt{}),
                    Shape<Int<kD>, Int<Tr::kBc>>{}, _1{}),
      shape_q,
      shape_k,
      shape_vt,
      shape_kp,
      shape_vtp,
      static_cast<Element*>(a.o),
      a.lse,
      a.n,
      a.n_kv,
      a.heads / a.kv_heads,
      scale,
      scale * 1.4426950408889634f,  // log2(e)
      a.causal,
      a.window,
      a.block_table,
      paged ? std::countr_zero(static_cast<unsigned>(a.page_size)) : 0,
      paged ? a.pages : 0,
      slots};
  const auto kernel = fwd_kernel<Tr>;
  if (const cudaError_t e =
          cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Tr::kSmemBytes);
      e != cudaSuccess) {
    return e;
  }
  const dim3 grid(static_cast<unsigned>((a.n + Tr::kBr - 1) / Tr::kBr), static_cast<unsigned>(a.heads));
  kernel<<<grid, Tr::kThreads, Tr::kSmemBytes, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace detail

/// flash3's own descriptor of one instantiation (the kernel menu's KernelEntry::native, cuda/kernels/flash3_fwd.cuh).
template <class Element, DType kType, int D, bool OVERLAP = true, int BR = 128, int BC = 128, int STAGES = 2>
FwdKernel fwd_kernel_entry() {
  using Tr = detail::FwdTraits<Element, D, BR, BC, STAGES, OVERLAP>;
  return FwdKernel{kType, D, BR, BC, STAGES, OVERLAP, Tr::kThreads, Tr::kSmemBytes, &detail::launch_fwd<Tr>};
}

}  // namespace iosim::gpu::flash3
