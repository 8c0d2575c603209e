// flash2 forward — FlashAttention-2 (Dao 2023, arXiv 2307.08691), the fast kernel of the backend.
//
// Computes O = softmax(scale · Q Kᵀ) V and L = rowwise logsumexp(scale · Q Kᵀ) (fp32) per head.
// Grid = (⌈n / B_r⌉, batch · heads): one block per Q tile, the Q tiles of one head side by side so
// that they share K/V through L2. Loop order and HBM traffic of one block:
//   load Q_i (B_r × d) once                                        → registers (ldmatrix A fragments)
//   for each K/V tile j (B_c rows):  load K_j, V_j (cp.async, while the block computes on tile j-1)
//     S = Q_i K_jᵀ (registers); m, l online (registers); P = exp2(S·scale·log2e − m·scale·log2e)
//     O ← α·O + P V_j (registers; P reused from the S accumulators as A fragments)
//   O ← O / l; store O_i (element type), L_i = m·scale + ln l (fp32)
// Per head: reads n·d + 2·T_r·n_kv·d elements, writes n·d elements and n floats; nothing else
// (no local memory, no scratch). Causal: a block visits the K/V tiles up to its last row's diagonal;
// with a sliding window of W keys (sim/core/mask.h) only from the tile of its first row's first key
// on, the tiles either edge crosses masked, those outside never loaded. Paged K/V (sim/core/paging.h):
// each K/V row is read from the slot its page's block-table entry names (KvRows, common.cuh).
//
// Design: W ∈ {4, 8} warps (4 by default, FA2's choice), each owns B_r/W rows (MT = B_r/(16·W) m16
// tiles) of Q, S, P and O; mma.sync m16n8k16 with fp32 accumulators; Q fragments loaded once into
// registers; S fragments turned into P (fp16/bf16) in place and fed to P·V as A operands (the m16n8
// C layout of two adjacent n8 tiles is the m16k16 A layout); softmax on the fragments, row max and
// row sum over the 4 lanes of a quad by shuffles (the row sum only once, at the end); K and V in a
// ring of kStages ∈ {1, 2, 3} shared-memory stages (2 by default): tile j + kStages − 1 is fetched by
// cp.async (16 bytes, zero-filled past n_kv) while tile j is used, so with 1 stage nothing overlaps
// the copy, with 2 one tile and with 3 two tiles are in flight; tiles XOR-swizzled (common.cuh) so that
// ldmatrix (K as [n][k], V with .trans as [k][n]) is free of bank conflicts; O staged through the
// (by then idle) Q tile so that it leaves in 16-byte stores.
//
// Run: through iosim::gpu::detail::launch with KernelSpec{"flash2", Direction::fwd, …}; tested in
// tests/gpu/test_kernels.cpp.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "cuda/kernels/common.cuh"
#include "cuda/kernels/launch_util.cuh"
#include "cuda/kernels/paged_kv.h"
#include "cuda/kernels/registry.h"

namespace iosim::gpu::kern {

/// Fragment registers per thread of a flash2 forward tile with `warps` warps: Q (MT·D/16·4), S
/// (MT·B_c/8·4) and O (MT·D/8·4), MT = B_r/(16·warps) m16 tiles per warp.
constexpr int flash2_fwd_state_regs(int d, int br, int bc, int warps) {
  return (br / (16 * warps)) * (d / 4 + bc / 2 + d / 2);
}

/// Shared memory of a flash2 forward block, bytes: Q (B_r rows) and `stages` copies of K and V
/// (B_c rows each), rows of d 16-bit elements (swizzled, unpadded).
constexpr std::size_t flash2_fwd_smem_bytes(int d, int br, int bc, int stages) {
  return static_cast<std::size_t>(br + 2 * stages * bc) * d * 2;
}

/// The menu variants this kernel takes: 4 or 8 warps of whole m16 tiles (B_r / warps a multiple of
/// 16: B_r ∈ {64, 128, 256} with 4 warps, {128, 256} with 8), 1, 2 or 3 K/V stages within the
/// opt-in shared memory of sm_80 … sm_90, and at most 160 fragment registers, so that addresses, B
/// fragments and temporaries fit under 255; d = 128 with B_c = 128 (160 as well) is left out because
/// ptxas (CUDA 13.0) spills 20 bytes there.
constexpr bool flash2_fwd_variant_ok(int d, int br, int bc, int warps, int stages) {
  return compiled_head_dim(d) && (warps == 4 || warps == 8) && (stages >= 1 && stages <= 3) &&
         (br == 64 || br == 128 || br == 256) && br % (16 * warps) == 0 && (bc == 32 || bc == 64 || bc == 128) &&
         flash2_fwd_state_regs(d, br, bc, warps) <= 160 && !(d == 128 && bc == 128) &&
         flash2_fwd_smem_bytes(d, br, bc, stages) <= kMaxSmemOptin;
}

/// Tile parameters of the flash2 forward kernel (its default variant: the first row of menu.csv).
template <int D, int BR, int BC, int WARPS, int STAGES>
struct Flash2FwdTraits {
  static_assert(flash2_fwd_variant_ok(D, BR, BC, WARPS, STAGES), "not a flash2 forward variant");
  static constexpr int kD = D;
  static constexpr int kBr = BR;
  static constexpr int kBc = BC;
  static constexpr int kWarps = WARPS;  ///< each warp owns B_r / kWarps rows
  static constexpr int kThreads = kWarps * kWarpSize;
  static constexpr int kRowsPerWarp = BR / kWarps;
  static constexpr int kMT = kRowsPerWarp / 16;  ///< m16 tiles per warp (2: every K/V fragment feeds two MMAs)
  static constexpr int kNS = BC / 8;             ///< n8 tiles of S per m16 tile
  static constexpr int kKQ = D / 16;             ///< k16 steps of Q Kᵀ
  static constexpr int kNO = D / 8;              ///< n8 tiles of O
  static constexpr int kKP = BC / 16;            ///< k16 steps of P V
  static constexpr int kStride = D;              ///< shared row width, elements (swizzled, unpadded)
  static constexpr int kQElems = BR * kStride;
  static constexpr int kKVElems = BC * kStride;  ///< one stage of K (or V)
  static constexpr int kStages = STAGES;         ///< K/V tiles resident: tile j and up to kStages − 1 ahead
  static constexpr std::size_t kSmemBytes = (kQElems + 2 * kStages * kKVElems) * 2;
  static_assert(kSmemBytes == flash2_fwd_smem_bytes(D, BR, BC, STAGES));
  /// Stage of K/V tile t: t mod kStages (a mask for powers of two).
  __device__ static int stage_of(int t) {
    if constexpr ((kStages & (kStages - 1)) == 0) {
      return t & (kStages - 1);
    } else {
      return t % kStages;
    }
  }
  static_assert(kRowsPerWarp % 16 == 0, "a warp owns whole m16 tiles");
  static_assert(BC % 16 == 0 && D % 16 == 0, "k16 steps");
  static_assert(kNS % 2 == 0 && kNO % 2 == 0, "B fragments come in pairs of n8 tiles (ldmatrix.x4)");
  static_assert((BR * D / kChunkElems) % kThreads == 0 && (BC * D / kChunkElems) % kThreads == 0,
                "tile copies split evenly over the block");
  static_assert((kRowsPerWarp * D / kChunkElems) % kWarpSize == 0, "O store splits evenly over a warp");
  static_assert(flash2_fwd_state_regs(D, BR, BC, WARPS) == kMT * (kKQ + kNS + kNO) * 4);
};

struct Flash2FwdParams {
  const void* q;
  const void* k;
  const void* v;
  void* o;
  float* lse;  ///< L, [batch·heads, n]
  int n;
  int n_kv;
  float scale;
  int group;    ///< query heads per K/V head: head bh reads K/V head bh / group
  bool causal;  ///< row r sees key c ≤ r + n_kv − n
  int window;   ///< with causal: row r also needs c > r + n_kv − n − window (sim/core/mask.h); 0: none
  const int* block_table;  ///< paged K/V: [K/V sequence, page] slots (sim/core/paging.h); nullptr: contiguous
  int page_shift;          ///< log2 of the page size (paged)
  int pages;               ///< pages of one K/V sequence (paged)
};

template <class T, class Tr>
__global__ void __launch_bounds__(Tr::kThreads, 1) flash2_fwd_kernel(const Flash2FwdParams p) {
  constexpr int kD = Tr::kD, kBr = Tr::kBr, kBc = Tr::kBc, kStride = Tr::kStride;
  constexpr int kMT = Tr::kMT, kNS = Tr::kNS, kKQ = Tr::kKQ, kNO = Tr::kNO, kKP = Tr::kKP;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* const q_s = reinterpret_cast<T*>(smem_raw);
  T* const k_s = q_s + Tr::kQElems;                 // stages 0 … kStages − 1
  T* const v_s = k_s + Tr::kStages * Tr::kKVElems;  // stages 0 … kStages − 1
  constexpr int kAhead = Tr::kStages - 1;           // K/V tiles in flight while one is computed on

  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid % kWarpSize;
  const int warp = tid / kWarpSize;
  const int bh = static_cast<int>(blockIdx.y);
  const int q0 = static_cast<int>(blockIdx.x) * kBr;
  const T* const q = static_cast<const T*>(p.q) + static_cast<std::int64_t>(bh) * p.n * kD;
  // K/V sequence bh / group: contiguous at its offset, or paged through its row of the block table.
  const int kv_seq = bh / p.group;
  const int* const table = p.block_table == nullptr ? nullptr : p.block_table + static_cast<std::int64_t>(kv_seq) * p.pages;
  const std::int64_t kv_off = table == nullptr ? static_cast<std::int64_t>(kv_seq) * p.n_kv * kD : 0;
  const KvRows<T> k{static_cast<const T*>(p.k) + kv_off, table, p.page_shift};
  const KvRows<T> v{static_cast<const T*>(p.v) + kv_off, table, p.page_shift};
  T* const o = static_cast<T*>(p.o) + static_cast<std::int64_t>(bh) * p.n * kD;
  // K/V tiles this block visits, [kv_first, kv_first + kv_tiles): all, or (causal) up to the last one
  // its last row sees, and (window) from the one holding its first row's first key on — as
  // Mask::kv_for_rows counts them; none when no row of the block sees a key (n > n_kv).
  const int offset = p.n_kv - p.n;
  const int kv_first = window_first_kv_tile(p.window, q0, p.n, p.n_kv, kBc);
  const int kv_end = causal_kv_tiles(p.causal, q0, p.n, p.n_kv, kBr, kBc);
  const int kv_tiles = kv_end > kv_first ? kv_end - kv_first : 0;
  // Under a window a tile is partly masked where some row's first key lies past its first column:
  // the block's last row has the largest first key.
  const int window_edge = p.window > 0 ? q0 + kBr - 1 + offset - p.window : -1;  // keys ≤ this: masked for some row
  const float scale_log2 = p.scale * kLog2e;
  // Prologue: Q_i (group 0), then K/V tiles 0 … kAhead − 1 (one group each, those that exist); Q
  // fragments as soon as group 0 has landed.
  load_rows_async<kBr, kD, Tr::kThreads>(q_s, q, q0, p.n, tid);
  cp_async_commit();
#pragma unroll
  for (int t = 0; t < kAhead; ++t) {
    if (t < kv_tiles) {
      load_rows_async<kBc, kD, Tr::kThreads>(k_s + t * Tr::kKVElems, k, (kv_first + t) * kBc, p.n_kv, tid);
      load_rows_async<kBc, kD, Tr::kThreads>(v_s + t * Tr::kKVElems, v, (kv_first + t) * kBc, p.n_kv, tid);
      cp_async_commit();
    }
  }
  // Tile groups behind Q: min(kAhead, kv_tiles).
  if constexpr (kAhead == 0) {
    cp_async_wait<0>();
  } else {
    cp_async_wait_upto<kAhead>(kAhead < kv_tiles ? kAhead : kv_tiles);
  }
  __syncthreads();

  const int wrow = warp * Tr::kRowsPerWarp;  // first row of this warp inside the tile
  std::uint32_t qf[kMT][kKQ][4];
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt) {
#pragma unroll
    for (int kk = 0; kk < kKQ; ++kk) load_a_mk(qf[mt][kk], q_s, kStride, wrow + mt * 16, kk * 16, lane);
  }

  float o_acc[kMT][kNO][4];
  float m_run[kMT][2];  // running max of the raw scores Q·K of rows g and g + 8 (same in the 4 lanes of a quad)
  float l_run[kMT][2];  // running sum, this lane's columns only (summed over the quad at the end)
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt) {
#pragma unroll
    for (int no = 0; no < kNO; ++no) {
#pragma unroll
      for (int e = 0; e < 4; ++e) o_acc[mt][no][e] = 0.f;
    }
    m_run[mt][0] = m_run[mt][1] = -INFINITY;
    l_run[mt][0] = l_run[mt][1] = 0.f;
  }

  for (int j = 0; j < kv_tiles; ++j) {
    // Fetch tile j + kAhead into the stage tile j − 1 used (free since the barrier that ended step
    // j − 1; with one stage that is tile j's own stage, and nothing overlaps the copy).
    // Then wait until at most the tiles after j are in flight: kAhead of them, fewer near the end
    // (with one stage the else branch is never taken). Tile j has landed (this thread's part) …
    if (j + kAhead < kv_tiles) {
      const int stage = Tr::stage_of(j + kAhead);
      const int row0 = (kv_first + j + kAhead) * kBc;
      load_rows_async<kBc, kD, Tr::kThreads>(k_s + stage * Tr::kKVElems, k, row0, p.n_kv, tid);
      load_rows_async<kBc, kD, Tr::kThreads>(v_s + stage * Tr::kKVElems, v, row0, p.n_kv, tid);
      cp_async_commit();
      cp_async_wait<kAhead>();
    } else {
      if constexpr (kAhead > 0) cp_async_wait_upto<kAhead - 1>(kv_tiles - 1 - j);
    }
    __syncthreads();  // … and every thread's part
    const T* const ks = k_s + Tr::stage_of(j) * Tr::kKVElems;
    const T* const vs = v_s + Tr::stage_of(j) * Tr::kKVElems;

    // S = Q_i K_jᵀ (raw scores).
    float s[kMT][kNS][4];
#pragma unroll
    for (int mt = 0; mt < kMT; ++mt) {
#pragma unroll
      for (int nt = 0; nt < kNS; ++nt) {
#pragma unroll
        for (int e = 0; e < 4; ++e) s[mt][nt][e] = 0.f;
      }
    }
#pragma unroll
    for (int kk = 0; kk < kKQ; ++kk) {
#pragma unroll
      for (int np = 0; np < kNS / 2; ++np) {
        std::uint32_t b[4];
        load_b_nk(b, ks, kStride, np * 16, kk * 16, lane);
#pragma unroll
        for (int mt = 0; mt < kMT; ++mt) {
          mma16816<T>(s[mt][2 * np], qf[mt][kk], b[0], b[1]);
          mma16816<T>(s[mt][2 * np + 1], qf[mt][kk], b[2], b[3]);
        }
      }
    }
    // Columns past n_kv (last tile only) do not exist, (causal) columns past a row's diagonal are
    // masked (tiles the diagonal crosses), and (window) columns at or before c = r + offset − W (tiles
    // the window's lower edge crosses): −inf, so that P = 0 there.
    const int c0 = (kv_first + j) * kBc;
    const bool diagonal = p.causal && c0 + kBc - 1 > q0 + offset;
    const bool edge = c0 <= window_edge;
    if (c0 + kBc > p.n_kv || diagonal || edge) {
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt) {
#pragma unroll
        for (int nt = 0; nt < kNS; ++nt) {
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int c = c0 + frag_col(nt, e, lane);
            const int r = q0 + wrow + frag_row(mt, e, lane);
            if (c >= p.n_kv || (p.causal && c > r + offset) || (p.window > 0 && c <= r + offset - p.window)) {
              s[mt][nt][e] = -INFINITY;
            }
          }
        }
      }
    }

    // Online softmax. A row may have seen no key yet (causal, n > n_kv; or a window whose first key
    // lies in a later tile of the block's run): its maximum is −inf, and
    // it is taken as 0 there so that P = exp(−inf) = 0 and α = 1 (no NaN from −inf − (−inf)).
#pragma unroll
    for (int mt = 0; mt < kMT; ++mt) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float mx = m_run[mt][h];
#pragma unroll
        for (int nt = 0; nt < kNS; ++nt) mx = fmaxf(mx, fmaxf(s[mt][nt][2 * h], s[mt][nt][2 * h + 1]));
        mx = fmaxf(mx, __shfl_xor_sync(kFullMask, mx, 1));
        mx = fmaxf(mx, __shfl_xor_sync(kFullMask, mx, 2));
        const bool none = mx == -INFINITY;
        const float alpha = none ? 1.f : fast_exp2((m_run[mt][h] - mx) * scale_log2);  // 0 on the first tile
        m_run[mt][h] = mx;
        const float mx_scaled = none ? 0.f : mx * scale_log2;
        float sum = 0.f;
#pragma unroll
        for (int nt = 0; nt < kNS; ++nt) {
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const float pe = fast_exp2(fmaf(s[mt][nt][2 * h + e], scale_log2, -mx_scaled));
            s[mt][nt][2 * h + e] = pe;
            sum += pe;
          }
        }
        l_run[mt][h] = l_run[mt][h] * alpha + sum;
#pragma unroll
        for (int no = 0; no < kNO; ++no) {
          o_acc[mt][no][2 * h] *= alpha;
          o_acc[mt][no][2 * h + 1] *= alpha;
        }
      }
    }

    // O += P V_j: the C fragments of n8 tiles 2kk and 2kk+1 are the A fragment of k16 step kk.
#pragma unroll
    for (int kk = 0; kk < kKP; ++kk) {
      std::uint32_t a[kMT][4];
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt) {
        a[mt][0] = pack2<T>(s[mt][2 * kk][0], s[mt][2 * kk][1]);
        a[mt][1] = pack2<T>(s[mt][2 * kk][2], s[mt][2 * kk][3]);
        a[mt][2] = pack2<T>(s[mt][2 * kk + 1][0], s[mt][2 * kk + 1][1]);
        a[mt][3] = pack2<T>(s[mt][2 * kk + 1][2], s[mt][2 * kk + 1][3]);
      }
#pragma unroll
      for (int np = 0; np < kNO / 2; ++np) {
        std::uint32_t b[4];
        load_b_kn(b, vs, kStride, np * 16, kk * 16, lane);
#pragma unroll
        for (int mt = 0; mt < kMT; ++mt) {
          mma16816<T>(o_acc[mt][2 * np], a[mt], b[0], b[1]);
          mma16816<T>(o_acc[mt][2 * np + 1], a[mt], b[2], b[3]);
        }
      }
    }
    __syncthreads();  // every warp is done with this stage before step j+1 refills it
  }

  // Epilogue: O / l into this warp's rows of the Q tile (only this warp ever read them), then out.
  // The barrier orders this warp's Q fragment reads before its O writes when no K/V tile came between
  // (causal, a block whose rows see no key).
  __syncwarp();
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float l = l_run[mt][h];
      l += __shfl_xor_sync(kFullMask, l, 1);
      l += __shfl_xor_sync(kFullMask, l, 2);
      // l ≥ 1 (the maximum contributes exp(0)) unless the row saw no key (causal, n > n_kv): then
      // O = 0 and L = +inf, FlashAttention-2's convention (the backward's P = exp(S − L) is 0 there).
      const float inv = l > 0.f ? 1.f / l : 0.f;
      const int r = wrow + frag_row(mt, 2 * h, lane);
      if ((lane & 3) == 0 && q0 + r < p.n) {
        p.lse[static_cast<std::int64_t>(bh) * p.n + q0 + r] = l > 0.f ? m_run[mt][h] * p.scale + logf(l) : INFINITY;
      }
#pragma unroll
      for (int no = 0; no < kNO; ++no) {
        smem_pair(q_s, kStride, r, frag_col(no, 0, lane)) =
            pack2<T>(o_acc[mt][no][2 * h] * inv, o_acc[mt][no][2 * h + 1] * inv);
      }
    }
  }
  __syncwarp();
  store_rows<Tr::kRowsPerWarp, kD, kWarpSize>(o, q_s + wrow * kStride, q0 + wrow, p.n, lane);
}

}  // namespace iosim::gpu::kern

namespace iosim::gpu::detail {

template <class T, class Tr>
void launch_flash2_fwd(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream) {
  const auto kernel = kern::flash2_fwd_kernel<T, Tr>;
  allow_dynamic_smem(kernel, Tr::kSmemBytes);
  kern::Flash2FwdParams p{buf.device(Tensor::Q), buf.device(Tensor::K), buf.device(Tensor::V),
                          buf.device(Tensor::O), device_ptr<float>(buf, Tensor::L), spec.n, spec.n_kv,
                          1.f / std::sqrt(static_cast<float>(Tr::kD)), group_size(spec), spec.causal,
                          spec.window, nullptr, 0, 0};
  if (spec.page_size > 0) {  // paged K/V: unsupported_in_build checked the page size is a power of two
    p.block_table = static_cast<const int*>(buf.device(Tensor::BT));
    p.page_shift = page_shift_of(spec.page_size);
    p.pages = static_cast<int>(kv_pages(spec));
  }
  const dim3 grid(static_cast<unsigned>((spec.n + Tr::kBr - 1) / Tr::kBr),
                  static_cast<unsigned>(spec.batch * spec.heads));
  kernel<<<grid, Tr::kThreads, Tr::kSmemBytes, stream>>>(p);
  IOSIM_CUDA_CHECK_LAUNCH();
}

/// The kernel as rows of the menu (cuda/kernels/menu.csv, menu_entry.cuh): any variant its traits take.
struct Flash2FwdKernel {
  static constexpr Direction kPass = Direction::fwd;
  template <int D, int BR, int BC, int WARPS, int STAGES>
  static constexpr bool accepts() {
    return kern::flash2_fwd_variant_ok(D, BR, BC, WARPS, STAGES);
  }
  template <int D, int BR, int BC, int WARPS, int STAGES>
  using Traits = kern::Flash2FwdTraits<D, BR, BC, WARPS, STAGES>;
  template <class T, class Tr>
  static void launch(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream) {
    launch_flash2_fwd<T, Tr>(spec, buf, stream);
  }
};

}  // namespace iosim::gpu::detail
