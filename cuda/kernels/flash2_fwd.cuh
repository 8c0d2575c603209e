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
// (no local memory, no scratch).
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
// Run: through iosim::gpu::detail::launch with KernelSpec{Algo::flash2, Direction::fwd, …}; tested in
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

/// FA2's own choice, and this kernel's default: 4 warps, K/V double-buffered.
inline constexpr int kFlash2FwdDefaultWarps = 4;
inline constexpr int kFlash2FwdDefaultStages = 2;

/// Tile parameters of the flash2 forward kernel.
template <int D, int BR, int BC, int WARPS = kFlash2FwdDefaultWarps, int STAGES = kFlash2FwdDefaultStages>
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

/// Default tiles. d = 64: 128 × 64. B_r = 128 gives each warp two m16 tiles, so every K and V
/// fragment read from shared memory feeds two MMAs (at 16 rows per warp ldmatrix bandwidth, not the
/// tensor cores, would bound the kernel); B_c = 64 rather than FA2's 128 because Q stays in registers
/// here: Q 32 + S 64 + O 64 fragment registers (160) against 224 at B_c = 128, which leaves no room
/// under 255 (ptxas, CUDA 13.0, sm_90, swizzled tiles: 239 registers, no spills, 2 blocks per SM). d = 128: 64 × 64. At
/// B_r = 128 the Q (64) and O (128) fragments alone take 192 registers, so each warp keeps one m16
/// tile: Q 32 + S 32 + O 64 = 128 (ptxas: 200 registers, no spills).
template <int D>
struct Flash2FwdDefault;
template <>
struct Flash2FwdDefault<64> {
  static constexpr int kBr = 128, kBc = 64;
};
template <>
struct Flash2FwdDefault<128> {
  static constexpr int kBr = 64, kBc = 64;
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
  const std::int64_t kv_off = static_cast<std::int64_t>(bh / p.group) * p.n_kv * kD;
  const T* const k = static_cast<const T*>(p.k) + kv_off;
  const T* const v = static_cast<const T*>(p.v) + kv_off;
  T* const o = static_cast<T*>(p.o) + static_cast<std::int64_t>(bh) * p.n * kD;
  // K/V tiles this block visits: all, or (causal) up to the last one its last row sees — as
  // CausalMask::kv_for_rows counts them; 0 when no row of the block sees a key (n > n_kv).
  const int offset = p.n_kv - p.n;
  const int kv_tiles = causal_kv_tiles(p.causal, q0, p.n, p.n_kv, kBr, kBc);
  const float scale_log2 = p.scale * kLog2e;
  // Prologue: Q_i (group 0), then K/V tiles 0 … kAhead − 1 (one group each, those that exist); Q
  // fragments as soon as group 0 has landed.
  load_rows_async<kBr, kD, Tr::kThreads>(q_s, q, q0, p.n, tid);
  cp_async_commit();
#pragma unroll
  for (int t = 0; t < kAhead; ++t) {
    if (t < kv_tiles) {
      load_rows_async<kBc, kD, Tr::kThreads>(k_s + t * Tr::kKVElems, k, t * kBc, p.n_kv, tid);
      load_rows_async<kBc, kD, Tr::kThreads>(v_s + t * Tr::kKVElems, v, t * kBc, p.n_kv, tid);
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
      load_rows_async<kBc, kD, Tr::kThreads>(k_s + stage * Tr::kKVElems, k, (j + kAhead) * kBc, p.n_kv, tid);
      load_rows_async<kBc, kD, Tr::kThreads>(v_s + stage * Tr::kKVElems, v, (j + kAhead) * kBc, p.n_kv, tid);
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
    // Columns past n_kv (last tile only) do not exist, and (causal) columns past a row's diagonal
    // are masked (tiles the diagonal crosses): −inf, so that P = 0 there.
    const bool diagonal = p.causal && (j + 1) * kBc - 1 > q0 + offset;
    if ((j + 1) * kBc > p.n_kv || diagonal) {
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt) {
#pragma unroll
        for (int nt = 0; nt < kNS; ++nt) {
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int c = j * kBc + frag_col(nt, e, lane);
            const int r = q0 + wrow + frag_row(mt, e, lane);
            if (c >= p.n_kv || (p.causal && c > r + offset)) s[mt][nt][e] = -INFINITY;
          }
        }
      }
    }

    // Online softmax. A row may have seen no key yet (causal, n > n_kv): its maximum is −inf, and
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
                          1.f / std::sqrt(static_cast<float>(Tr::kD)), group_size(spec), spec.causal};
  const dim3 grid(static_cast<unsigned>((spec.n + Tr::kBr - 1) / Tr::kBr),
                  static_cast<unsigned>(spec.batch * spec.heads));
  kernel<<<grid, Tr::kThreads, Tr::kSmemBytes, stream>>>(p);
  IOSIM_CUDA_CHECK_LAUNCH();
}

template <class T, int D, int BR, int BC, int WARPS, int STAGES>
void add_flash2_fwd(std::vector<KernelEntry>& out) {
  using Tr = kern::Flash2FwdTraits<D, BR, BC, WARPS, STAGES>;
  out.push_back(KernelEntry{Algo::flash2, Direction::fwd, D, kDTypeOf<T>, BR, BC, Tr::kSmemBytes,
                            &launch_flash2_fwd<T, Tr>, Tr::kWarps, Tr::kStages});
}

/// Warps in registration order: the kernel's default first, so that a spec leaving warps and stages
/// at 0 gets 4 warps where the tile has them and 8 where only 8 fit (and 2 stages: the instantiation
/// file of 2 stages registers first, cuda/kernels/registry.cpp).
inline constexpr std::array<int, 2> kFlash2FwdWarps = {kern::kFlash2FwdDefaultWarps, 8};

/// The variants of one tile with STAGES stages, in kFlash2FwdWarps order; `skip_default` leaves the
/// default (4 warps, 2 stages) out (the group registered it first).
template <class T, int D, int BR, int BC, int STAGES>
void add_flash2_fwd_tile(std::vector<KernelEntry>& out, bool skip_default) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (
        [&] {
          constexpr int kW = kFlash2FwdWarps[I];
          if constexpr (kern::flash2_fwd_variant_ok(D, BR, BC, kW, STAGES)) {
            constexpr bool kDefault = kW == kern::kFlash2FwdDefaultWarps && STAGES == kern::kFlash2FwdDefaultStages;
            if (!kDefault || !skip_default) add_flash2_fwd<T, D, BR, BC, kW, STAGES>(out);
          }
        }(),
        ...);
  }(std::make_index_sequence<kFlash2FwdWarps.size()>{});
}

/// The group of one instantiation file: the variants of one (d, type) with STAGES stages. The
/// 2-stage file holds the default kernel (default tile, 4 warps), first; full builds add every other
/// variant of the menu with STAGES stages (one file per stage count, so that they compile in
/// parallel).
template <class T, int D, int STAGES>
void register_flash2_fwd_group(std::vector<KernelEntry>& out) {
  using Def = kern::Flash2FwdDefault<D>;
  if constexpr (STAGES == kern::kFlash2FwdDefaultStages) {
    add_flash2_fwd<T, D, Def::kBr, Def::kBc, kern::kFlash2FwdDefaultWarps, STAGES>(out);
  }
#ifdef IOSIM_CUDA_FULL_TILES
  for_each_menu_tile([&]<int BR, int BC>() {
    add_flash2_fwd_tile<T, D, BR, BC, STAGES>(out, BR == Def::kBr && BC == Def::kBc);
  });
#else
  static_cast<void>(out);
#endif
}

}  // namespace iosim::gpu::detail
