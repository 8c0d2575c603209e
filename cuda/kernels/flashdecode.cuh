// flashdecode — split-KV decoding (Flash-Decoding; FlashAttention-2's flash_fwd_splitkv_kernel and
// flash_fwd_splitkv_combine_kernel), the kernels of sim/schedule/flashdecode/flashdecode.cpp.
//
// Two kernels, named as the model names them (sim/schedule/flashdecode/register.cpp):
//   flashdecode_split    grid (⌈rows / 64⌉ · s, batch · grid heads): block (m, k) takes row tile m of one
//                        grid head against split k of its K/V tiles (⌈T / s⌉ consecutive tiles of B_c):
//                          load Q tile (64 rows) once → registers
//                          for each K/V tile j of split k: load K_j, V_j (cp.async, a ring of STAGES);
//                            S = Q K_jᵀ, online softmax, O ← α·O + P V_j (64 columns at a time)
//                          s = 1: store O (element type) and L; s > 1: store Opart_k = O / l (fp32) and
//                          Lpart_k = m·scale + ln l (fp32), [s, batch · heads, n, d] and [s, batch · heads, n]
//   flashdecode_combine  (s > 1 only) grid (⌈rows / 64⌉, batch · grid heads), 128 threads: per row
//                          L = ln Σ_k exp(Lpart_k), O = Σ_k exp(Lpart_k − L) · Opart_k
// Grid heads and rows: packed (flashdecode), a grid head is a key/value head and its rows are the group's
// query heads × n (adjacent in [batch, heads, n, d]: Q, O, L, Opart, Lpart are read as [batch, kv_heads,
// group·n, d]); per query head (flashdecode-heads), a grid head is a query head, rows = n, and it reads the
// K/V head of its group. B_r = 64 (4 warps of 16 rows), B_c = 256 (d = 64) or 128 (d = 128), FA2's
// splitkv tiles (fa2_splitkv_tiles); s = flashdecode_splits() on this GPU unless the spec gives it.
// Inside a block the 4 warps split the work by rows (16 each; a warp none of whose rows exist only copies)
// or, where the grid head has at most 16 rows (decoding one query of a group of ≤ 16 heads), by columns:
// each warp takes a quarter of every K/V tile for all 16 rows, and the four (m, l, O) are merged through
// shared memory at the end, so that all warps compute. Neither changes what the block moves.
// Per grid head: reads rows·d · s (Q) + 2 · n_kv · d (K, V) elements; writes rows·d, rows (O, L), with
// s > 1 also s · rows · (d + 1) fp32 partials, which the combine reads once. Paged K/V (sim/core/paging.h):
// each K/V row is read from the slot its page's block-table entry names (KvRows, common.cuh).
// Causal and sliding window (sim/core/mask.h; row r of a grid head is query position r mod n): a block
// reads only the K/V tiles its positions see — packed, those of positions 0 … n − 1, per query head
// those of its row tile, as the model's Mask::kv_for_rows — the part of them in its split; steps the
// diagonal or the window's edge crosses are masked by element. A split with no tile of the run stores
// O = 0, L = −inf, which the combine weighs 0; a row that sees no key at all gets O = 0, L = −inf.
//
// Run: through iosim::gpu::detail::launch with KernelSpec{"flashdecode" or "flashdecode-heads", …};
// tested in tests/gpu/test_decode.cpp.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "cuda/kernels/common.cuh"
#include "cuda/kernels/decode_plan.h"
#include "cuda/kernels/launch_util.cuh"
#include "cuda/kernels/paged_kv.h"
#include "cuda/kernels/registry.h"

namespace iosim::gpu::kern {

inline constexpr int kDecodeBr = 64;
inline constexpr int kDecodeWarps = 4;
inline constexpr int kDecodeSub = 64;  ///< K/V columns per compute step by rows: S stays at 32 registers a thread
/// The running maximum's start, −kNoScore: below any raw score Q·K of fp16/bf16 inputs that stays finite
/// in fp32, and far enough from −FLT_MAX that (m − max) · scale · log2 e stays finite.
inline constexpr float kNoScore = 1e30f;

// ---- this kernel's shared-memory layout -----------------------------------------------------------
// Tiles are d elements wide, unpadded, XOR-swizzled in 16-byte chunks (as CUTLASS's Swizzle<3,3,3> and
// FlashAttention-2 lay them out): chunk c of row r sits at chunk c ^ (r mod 8). Rows are 128 or 256
// bytes, so the 8 rows one ldmatrix matrix reads (one logical chunk) fall in 8 distinct bank groups, and
// each 16-byte cp.async lands in the same 128-byte shared line as its neighbours of one global line
// (padded rows break that and make the L2 count copies' sectors 1.5×, docs/validation.md). Defined here,
// on the stable primitives of common.cuh only (ldmatrix, cp.async, mma), so that this kernel does not
// depend on the layout the other kernels use.

/// blockIdx.x and .y read by an instruction the compiler keeps where it is (not merged with an earlier read).
__device__ __forceinline__ unsigned decode_ctaid_x() {
  unsigned v;
  asm volatile("mov.u32 %0, %%ctaid.x;" : "=r"(v));
  return v;
}
__device__ __forceinline__ unsigned decode_ctaid_y() {
  unsigned v;
  asm volatile("mov.u32 %0, %%ctaid.y;" : "=r"(v));
  return v;
}

/// Element offset of (row, col) in a swizzled tile `width` elements wide (width ≥ 64).
__device__ __forceinline__ int decode_swz(int row, int col, int width) {
  return row * width + (col ^ ((row & 7) << 3));
}

/// Rows [row0, row0 + ROWS) of a row-major [rows × COLS] global matrix (or of a K/V sequence, KvRows:
/// contiguous or paged) into a swizzled shared tile, by
/// NTHREADS threads, 16 bytes each (eight consecutive threads: one 128-byte line); rows ≥ row_end are
/// zero-filled and not read.
template <int ROWS, int COLS, int NTHREADS, class T, class Src>
__device__ __forceinline__ void decode_load_rows(T* dst, const Src& src, int row0, int row_end, int tid) {
  constexpr int kChunksPerRow = COLS / kChunkElems;
  constexpr int kChunks = ROWS * kChunksPerRow;
  static_assert(kChunks % NTHREADS == 0 && COLS >= 64);
#pragma unroll
  for (int it = 0; it < kChunks / NTHREADS; ++it) {
    const int c = tid + it * NTHREADS;
    const int r = c / kChunksPerRow;
    const int col = (c % kChunksPerRow) * kChunkElems;
    const bool valid = row0 + r < row_end;
    const T* from = row_ptr(src, valid ? row0 + r : 0, COLS) + col;
    cp_async_16(dst + decode_swz(r, col, COLS), from, valid);
  }
}

/// Fragment loaders of common.cuh's layouts (A as [m][k]; B as [n][k], or as [k][n] transposed) on a
/// swizzled tile `width` elements wide; row offsets multiples of 8, column offsets of 16.
template <class T>
__device__ __forceinline__ void decode_load_a_mk(std::uint32_t (&a)[4], const T* s, int width, int m0, int k0, int lane) {
  ldsm_x4(a, s + decode_swz(m0 + (lane & 15), k0 + ((lane >> 4) << 3), width));
}
template <class T>
__device__ __forceinline__ void decode_load_b_nk(std::uint32_t (&b)[4], const T* s, int width, int n0, int k0, int lane) {
  ldsm_x4(b, s + decode_swz(n0 + (lane & 7) + ((lane >> 4) << 3), k0 + (((lane >> 3) & 1) << 3), width));
}
template <class T>
__device__ __forceinline__ void decode_load_b_kn(std::uint32_t (&b)[4], const T* s, int width, int n0, int k0, int lane) {
  ldsm_x4_trans(b, s + decode_swz(k0 + (lane & 7) + (((lane >> 3) & 1) << 3), n0 + ((lane >> 4) << 3), width));
}

/// Shared memory of a split block: Q (64 rows) and `stages` copies of K and V (B_c rows each), unpadded.
constexpr std::size_t decode_split_smem_bytes(int d, int bc, int stages) {
  return static_cast<std::size_t>(kDecodeBr + 2 * stages * bc) * d * 2;
}

template <int D, int BC, int STAGES, bool COLS = false>
struct DecodeTraits {
  static constexpr bool kCols = COLS;  ///< warps split each K/V tile's columns (grid heads of ≤ 16 rows)
  static constexpr int kSub = COLS ? BC / kDecodeWarps : kDecodeSub;  ///< columns of one compute step
  static constexpr int kSubs = COLS ? 1 : BC / kDecodeSub;           ///< compute steps of a warp per tile
  static constexpr int kD = D;
  static constexpr int kBc = BC;
  static constexpr int kThreads = kDecodeWarps * kWarpSize;
  static constexpr int kKQ = D / 16;
  static constexpr int kNO = D / 8;
  static constexpr int kNS = kSub / 8;
  static constexpr int kKP = kSub / 16;
  static constexpr int kStride = D;  ///< swizzled rows, no padding
  static constexpr int kQElems = kDecodeBr * kStride;
  static constexpr int kKVElems = BC * kStride;
  static constexpr int kStages = STAGES;
  static constexpr std::size_t kSmemBytes = (kQElems + 2 * kStages * kKVElems) * 2;
  static_assert(kSmemBytes == decode_split_smem_bytes(D, BC, STAGES));
  static_assert(kSmemBytes <= kMaxSmemOptin, "does not fit the shared memory of one block");
  static_assert(BC % kDecodeSub == 0 && compiled_head_dim(D) && STAGES >= 1 && STAGES <= 3);
  static_assert(kNS % 2 == 0 && kSub % 16 == 0);
  /// Column mode's merge: each warp's O (16 × d), m and l (16 each), fp32, over the K/V stages.
  static constexpr std::size_t kMergeBytes = kDecodeWarps * 16 * (D + 2) * sizeof(float);
  static_assert(!COLS || kMergeBytes <= 2 * kStages * kKVElems * 2, "the merge fits where K and V were");
  static_assert((kDecodeBr * D / kChunkElems) % kThreads == 0 && (BC * D / kChunkElems) % kThreads == 0);
  static_assert((16 * D / kChunkElems) % kWarpSize == 0, "O store splits evenly over a warp");
  __device__ static int stage_of(int t) { return t % kStages; }
};

struct DecodeParams {
  const void* q;
  const void* k;
  const void* v;
  void* o;
  float* lse;    ///< L, [batch · heads, n]
  float* opart;  ///< [splits, batch · heads · n, d] (s > 1)
  float* lpart;  ///< [splits, batch · heads · n] (s > 1)
  int rows;          ///< rows of one grid head: group · n packed, n per query head
  int heads;         ///< grid heads per batch: kv_heads packed, heads otherwise
  int group_div;     ///< grid heads per K/V head: 1 packed, group otherwise
  int kv_heads;      ///< K/V heads per batch
  int n_kv;
  int splits;
  int tiles_per_split;
  int m_tiles;         ///< ⌈rows / 64⌉
  std::int64_t total_rows;  ///< batch · heads · n: rows of one split's partials
  float scale;
  const int* block_table;  ///< paged K/V: [K/V sequence, page] slots (sim/core/paging.h); nullptr: contiguous
  int page_shift;          ///< log2 of the page size (paged)
  int pages;               ///< pages of one K/V sequence (paged)
  int n;                   ///< query positions per head: row r of a grid head is position r mod n
  int packed;              ///< rows are the group's heads × n: every block sees positions 0 … n − 1
  int causal;              ///< position i sees key c ≤ i + n_kv − n (sim/core/mask.h)
  int window;              ///< with causal: also c > i + n_kv − n − window; 0: none
  int reach;               ///< the window, or 2³⁰ without one: a row sees keys c with c + reach > its diagonal
  int offset;              ///< n_kv − n: position i's diagonal is key i + offset (a parameter, not a register)
};

/// Column mode's end: the four warps' (m, l, O) of the same 16 rows merged through shared memory (`red`,
/// where K and V were: every warp is past the loop's last barrier), then O / l and L, or the partials,
/// stored by the whole block, two columns per thread at a time.
template <class T, class Tr>
__device__ __forceinline__ void decode_merge_and_store(const DecodeParams& p, float* red, const float (&o_acc)[Tr::kNO][4],
                                                       const float (&m_run)[2], const float (&l_run)[2], int warp,
                                                       int lane, int tid, int split, int q0, std::int64_t row_base) {
  constexpr int kD = Tr::kD;
  float* const red_o = red;                                    // [warp][16][d]
  float* const red_m = red + kDecodeWarps * 16 * kD;           // [warp][16]
  float* const red_l = red_m + kDecodeWarps * 16;              // [warp][16]
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float l = l_run[h];
    l += __shfl_xor_sync(kFullMask, l, 1);
    l += __shfl_xor_sync(kFullMask, l, 2);
    const int r = frag_row(0, 2 * h, lane);
    if ((lane & 3) == 0) {
      red_m[warp * 16 + r] = m_run[h];
      red_l[warp * 16 + r] = l;
    }
#pragma unroll
    for (int no = 0; no < Tr::kNO; ++no) {
      *reinterpret_cast<float2*>(red_o + (warp * 16 + r) * kD + frag_col(no, 0, lane)) =
          make_float2(o_acc[no][2 * h], o_acc[no][2 * h + 1]);
    }
  }
  __syncthreads();
  const float scale_log2 = p.scale * kLog2e;
  const int rows = min(16, p.rows - q0);
  for (int e = tid; e < rows * (kD / 2); e += Tr::kThreads) {
    const int r = e / (kD / 2), c = (e % (kD / 2)) * 2;
    float mx = -INFINITY;
#pragma unroll
    for (int w = 0; w < kDecodeWarps; ++w) mx = fmaxf(mx, red_m[w * 16 + r]);
    float l = 0.f, o0 = 0.f, o1 = 0.f;
#pragma unroll
    for (int w = 0; w < kDecodeWarps; ++w) {
      const float mw = red_m[w * 16 + r];
      const float a = fast_exp2((mw - mx) * scale_log2);  // a warp that saw no column: l = 0, O = 0
      l = fmaf(a, red_l[w * 16 + r], l);
      const float2 x = *reinterpret_cast<const float2*>(red_o + (w * 16 + r) * kD + c);
      o0 = fmaf(a, x.x, o0);
      o1 = fmaf(a, x.y, o1);
    }
    const float inv = l > 0.f ? 1.f / l : 0.f;  // l = 0 only in an empty split: O = 0, L = −inf
    const float lse = l > 0.f ? mx * p.scale + logf(l) : -INFINITY;
    const std::int64_t row = row_base + q0 + r;
    if (p.splits == 1) {
      *reinterpret_cast<std::uint32_t*>(static_cast<T*>(p.o) + row * kD + c) = pack2<T>(o0 * inv, o1 * inv);
      if (c == 0) p.lse[row] = lse;
    } else {
      const std::int64_t prow = static_cast<std::int64_t>(split) * p.total_rows + row;
      *reinterpret_cast<float2*>(p.opart + prow * kD + c) = make_float2(o0 * inv, o1 * inv);
      if (c == 0) p.lpart[prow] = lse;
    }
  }
}

template <class T, class Tr>
__global__ void __launch_bounds__(Tr::kThreads, 1) flashdecode_split(const DecodeParams p) {
  constexpr int kD = Tr::kD, kBc = Tr::kBc, kStride = Tr::kStride;
  constexpr int kNS = Tr::kNS, kKQ = Tr::kKQ, kNO = Tr::kNO, kKP = Tr::kKP;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* const q_s = reinterpret_cast<T*>(smem_raw);
  T* const k_s = q_s + Tr::kQElems;
  T* const v_s = k_s + Tr::kStages * Tr::kKVElems;
  constexpr int kAhead = Tr::kStages - 1;

  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid % kWarpSize;
  const int warp = tid / kWarpSize;
  const int gh = static_cast<int>(blockIdx.y);
  const int m = static_cast<int>(blockIdx.x) % p.m_tiles;
  const int split = static_cast<int>(blockIdx.x) / p.m_tiles;
  const int q0 = m * kDecodeBr;
  const int kvh = (gh / p.heads) * p.kv_heads + (gh % p.heads) / p.group_div;
  const std::int64_t row_base = static_cast<std::int64_t>(gh) * p.rows;  // first row of this grid head
  const T* const q = static_cast<const T*>(p.q) + row_base * kD;
  // K/V sequence kvh: contiguous at its offset, or paged through its row of the block table.
  const int* const table = p.block_table == nullptr ? nullptr : p.block_table + static_cast<std::int64_t>(kvh) * p.pages;
  const std::int64_t kv_off = table == nullptr ? static_cast<std::int64_t>(kvh) * p.n_kv * kD : 0;
  const KvRows<T> k{static_cast<const T*>(p.k) + kv_off, table, p.page_shift};
  const KvRows<T> v{static_cast<const T*>(p.v) + kv_off, table, p.page_shift};
  const int kv_tiles = (p.n_kv + kBc - 1) / kBc;
  // The K/V tiles the block's query positions see, [kv_lo, kv_hi), as the model's Mask::kv_for_rows
  // counts them: packed, positions 0 … n − 1 of every head of the group (whatever the row tile); per
  // query head, the row tile's own positions. Causal: up to the tile of the last one's diagonal;
  // window: from the tile of the first one's first key. The splits partition all ⌈n_kv / B_c⌉ tiles
  // (as FlashAttention-2's splitkv kernel and the model do) and each keeps its share of that run: with
  // a window most splits are empty, load Q and store an empty partial (O = 0, L = −inf).
  const int pos0 = p.packed ? 0 : q0;
  const int pos_rows = p.packed ? p.n : kDecodeBr;
  const int kv_lo = window_first_kv_tile(p.window, pos0, p.n, p.n_kv, kBc);
  const int kv_hi = causal_kv_tiles(p.causal, pos0, p.n, p.n_kv, pos_rows, kBc);
  const int t0 = max(split * p.tiles_per_split, kv_lo);
  const int t1 = min(min(split * p.tiles_per_split + p.tiles_per_split, kv_tiles), kv_hi);
  const int count = t1 > t0 ? t1 - t0 : 0;
  const float scale_log2 = p.scale * kLog2e;

  decode_load_rows<kDecodeBr, kD, Tr::kThreads>(q_s, q, q0, p.rows, tid);
  cp_async_commit();
#pragma unroll
  for (int t = 0; t < kAhead; ++t) {
    if (t < count) {
      decode_load_rows<kBc, kD, Tr::kThreads>(k_s + t * Tr::kKVElems, k, (t0 + t) * kBc, p.n_kv, tid);
      decode_load_rows<kBc, kD, Tr::kThreads>(v_s + t * Tr::kKVElems, v, (t0 + t) * kBc, p.n_kv, tid);
    }
    cp_async_commit();  // an empty group where the tile does not exist: the counts below stay simple
  }
  cp_async_wait<kAhead>();  // Q has landed (groups complete in order)
  __syncthreads();

  const int wrow = Tr::kCols ? 0 : warp * 16;
  const int cbase = Tr::kCols ? warp * Tr::kSub : 0;  // this warp's first column inside a K/V tile
  const bool active = q0 + wrow < p.rows;  // warp-uniform: does any of this warp's rows exist?
  std::uint32_t qf[kKQ][4];
  if (active) {
#pragma unroll
    for (int kk = 0; kk < kKQ; ++kk) decode_load_a_mk(qf[kk], q_s, kStride, wrow, kk * 16, lane);
  }
  float o_acc[kNO][4];
  // The running maximum starts finite (−kNoScore, below any score), so that a row all of whose columns
  // a step masks (its window starts later, or n > n_kv) gets α = 1 and P = exp(−inf) = 0, no NaN from
  // −inf − (−inf), without a test in the loop (no register to spare in row mode at d = 128).
  float m_run[2] = {-kNoScore, -kNoScore};
  float l_run[2] = {0.f, 0.f};
#pragma unroll
  for (int no = 0; no < kNO; ++no) {
#pragma unroll
    for (int e = 0; e < 4; ++e) o_acc[no][e] = 0.f;
  }

  for (int i = 0; i < count; ++i) {
    // Fetch tile i + kAhead into the stage tile i − 1 used (free since the barrier ending step i − 1),
    // committing a group every step (empty past the split's end), so that waiting for all but kAhead
    // groups always means tile i has landed.
    if (kAhead > 0) {
      if (i + kAhead < count) {
        const int stage = Tr::stage_of(i + kAhead);
        const int row0 = (t0 + i + kAhead) * kBc;
        decode_load_rows<kBc, kD, Tr::kThreads>(k_s + stage * Tr::kKVElems, k, row0, p.n_kv, tid);
        decode_load_rows<kBc, kD, Tr::kThreads>(v_s + stage * Tr::kKVElems, v, row0, p.n_kv, tid);
      }
      cp_async_commit();
      cp_async_wait<kAhead>();
    } else {
      decode_load_rows<kBc, kD, Tr::kThreads>(k_s, k, (t0 + i) * kBc, p.n_kv, tid);
      decode_load_rows<kBc, kD, Tr::kThreads>(v_s, v, (t0 + i) * kBc, p.n_kv, tid);
      cp_async_commit();
      cp_async_wait<0>();
    }
    __syncthreads();
    const T* const ks = k_s + Tr::stage_of(i) * Tr::kKVElems;
    const T* const vs = v_s + Tr::stage_of(i) * Tr::kKVElems;
    const int col0 = (t0 + i) * kBc;
    if (active) {
#pragma unroll 1
      for (int sub = 0; sub < Tr::kSubs; ++sub) {
        const int c0 = cbase + sub * Tr::kSub;
        if (col0 + c0 >= p.n_kv) break;  // the rest of the last tile does not exist
        float s[kNS][4];
#pragma unroll
        for (int nt = 0; nt < kNS; ++nt) {
#pragma unroll
          for (int e = 0; e < 4; ++e) s[nt][e] = 0.f;
        }
#pragma unroll
        for (int kk = 0; kk < kKQ; ++kk) {
#pragma unroll
          for (int np = 0; np < kNS / 2; ++np) {
            std::uint32_t b[4];
            decode_load_b_nk(b, ks, kStride, c0 + np * 16, kk * 16, lane);
            mma16816<T>(s[2 * np], qf[kk], b[0], b[1]);
            mma16816<T>(s[2 * np + 1], qf[kk], b[2], b[3]);
          }
        }
        // Columns past n_kv (the last tile), past a row's diagonal (causal) or at or before its window's
        // edge: −inf, so that P = 0 there. A row's diagonal (last key; n_kv − 1 without the causal mask)
        // is recomputed here, not held across the loop: the row-mode kernel at d = 128 has no register
        // to spare (the modulo keeps the compiler from hoisting it).
        // A step needs the per-element mask where its columns pass n_kv, the block's smallest diagonal,
        // or (window) reach back to its largest window edge: bounds recomputed every step from q0 (an
        // opaque copy, so that they are not hoisted into registers held across the loop).
        const int cs = col0 + c0;
        int q0_now;
        asm volatile("mov.b32 %0, %1;" : "=r"(q0_now) : "r"(q0));
        const int pos_first = p.packed ? 0 : q0_now;
        const int pos_last = p.packed ? p.n - 1 : min(q0_now + kDecodeBr, p.n) - 1;
        const int diag_min = p.causal ? pos_first + p.offset : p.n_kv - 1;
        if (cs + Tr::kSub > p.n_kv || cs + Tr::kSub - 1 > diag_min || cs + p.reach <= pos_last + p.offset) {
          int diag[2];
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            diag[h] = p.causal ? (q0 + wrow + frag_row(0, 2 * h, lane)) % p.n + p.offset : p.n_kv - 1;
          }
#pragma unroll
          for (int nt = 0; nt < kNS; ++nt) {
#pragma unroll
            for (int e = 0; e < 4; ++e) {
              const int c = cs + frag_col(nt, e, lane);
              if (c > diag[e >> 1] || c + p.reach <= diag[e >> 1]) s[nt][e] = -INFINITY;
            }
          }
        }
        // Online softmax; the maximum is finite (m_run starts at −kNoScore).
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          float mx = m_run[h];
#pragma unroll
          for (int nt = 0; nt < kNS; ++nt) mx = fmaxf(mx, fmaxf(s[nt][2 * h], s[nt][2 * h + 1]));
          mx = fmaxf(mx, __shfl_xor_sync(kFullMask, mx, 1));
          mx = fmaxf(mx, __shfl_xor_sync(kFullMask, mx, 2));
          const float alpha = fast_exp2((m_run[h] - mx) * scale_log2);
          m_run[h] = mx;
          const float mx_scaled = mx * scale_log2;
          float sum = 0.f;
#pragma unroll
          for (int nt = 0; nt < kNS; ++nt) {
#pragma unroll
            for (int e = 0; e < 2; ++e) {
              const float pe = fast_exp2(fmaf(s[nt][2 * h + e], scale_log2, -mx_scaled));
              s[nt][2 * h + e] = pe;
              sum += pe;
            }
          }
          l_run[h] = l_run[h] * alpha + sum;
#pragma unroll
          for (int no = 0; no < kNO; ++no) {
            o_acc[no][2 * h] *= alpha;
            o_acc[no][2 * h + 1] *= alpha;
          }
        }
#pragma unroll
        for (int kk = 0; kk < kKP; ++kk) {
          std::uint32_t a[4];
          a[0] = pack2<T>(s[2 * kk][0], s[2 * kk][1]);
          a[1] = pack2<T>(s[2 * kk][2], s[2 * kk][3]);
          a[2] = pack2<T>(s[2 * kk + 1][0], s[2 * kk + 1][1]);
          a[3] = pack2<T>(s[2 * kk + 1][2], s[2 * kk + 1][3]);
#pragma unroll
          for (int np = 0; np < kNO / 2; ++np) {
            std::uint32_t b[4];
            decode_load_b_kn(b, vs, kStride, np * 16, c0 + kk * 16, lane);
            mma16816<T>(o_acc[2 * np], a, b[0], b[1]);
            mma16816<T>(o_acc[2 * np + 1], a, b[2], b[3]);
          }
        }
      }
    }
    __syncthreads();  // every warp is done with this stage before it is refilled
  }
  cp_async_wait<0>();  // nothing left in flight (only empty groups can be)
  // The block's split and first row again, from the block index read anew (an opaque read, which the
  // compiler cannot merge with the first): held across the loop they would take registers the row-mode
  // kernel at d = 128 does not have.
  const int split_end = static_cast<int>(decode_ctaid_x()) / p.m_tiles;
  const std::int64_t row_base_end = static_cast<std::int64_t>(decode_ctaid_y()) * p.rows;

  if constexpr (Tr::kCols) {
    decode_merge_and_store<T, Tr>(p, reinterpret_cast<float*>(k_s), o_acc, m_run, l_run, warp, lane, tid, split_end, q0,
                                  row_base_end);
    return;
  }
  if (!active) return;
  const bool direct = p.splits == 1;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float l = l_run[h];
    l += __shfl_xor_sync(kFullMask, l, 1);
    l += __shfl_xor_sync(kFullMask, l, 2);
    const float inv = l > 0.f ? 1.f / l : 0.f;  // l = 0 only in an empty split: O = 0, L = −inf
    const float lse = l > 0.f ? m_run[h] * p.scale + logf(l) : -INFINITY;
    const int r = wrow + frag_row(0, 2 * h, lane);
    const bool row_ok = q0 + r < p.rows;
    if (direct) {
      if ((lane & 3) == 0 && row_ok) p.lse[row_base_end + q0 + r] = lse;
#pragma unroll
      for (int no = 0; no < kNO; ++no) {
        *reinterpret_cast<std::uint32_t*>(q_s + decode_swz(r, frag_col(no, 0, lane), kStride)) =
            pack2<T>(o_acc[no][2 * h] * inv, o_acc[no][2 * h + 1] * inv);
      }
    } else if (row_ok) {
      const std::int64_t row = static_cast<std::int64_t>(split_end) * p.total_rows + row_base_end + q0 + r;
      if ((lane & 3) == 0) p.lpart[row] = lse;
#pragma unroll
      for (int no = 0; no < kNO; ++no) {
        *reinterpret_cast<float2*>(p.opart + row * kD + frag_col(no, 0, lane)) =
            make_float2(o_acc[no][2 * h] * inv, o_acc[no][2 * h + 1] * inv);
      }
    }
  }
  if (direct) {
    __syncwarp();
    T* const o = static_cast<T*>(p.o) + row_base_end * kD;
    // This warp's 16 rows of O, 16 bytes a lane at a time (rows past the grid head's skipped).
    constexpr int kChunksPerRow = kD / kChunkElems;
#pragma unroll
    for (int it = 0; it < 16 * kChunksPerRow / kWarpSize; ++it) {
      const int c = lane + it * kWarpSize;
      const int r = wrow + c / kChunksPerRow, col = (c % kChunksPerRow) * kChunkElems;
      if (q0 + r < p.rows) {
        *reinterpret_cast<uint4*>(o + static_cast<std::int64_t>(q0 + r) * kD + col) =
            *reinterpret_cast<const uint4*>(q_s + decode_swz(r, col, kStride));
      }
    }
  }
}

inline constexpr int kCombineThreads = 128;

/// The combine: block (m, grid head) merges rows [64m, 64m + 64) of every split. Each row's weights
/// exp(Lpart_k − L) go through shared memory ([64][splits] floats), then the block sums the partial
/// outputs four columns (16 bytes) per thread at a time.
template <class T, int D>
__global__ void __launch_bounds__(kCombineThreads) flashdecode_combine(const DecodeParams p) {
  extern __shared__ float w_s[];  // [kDecodeBr][splits]
  const int tid = static_cast<int>(threadIdx.x);
  const int gh = static_cast<int>(blockIdx.y);
  const int q0 = static_cast<int>(blockIdx.x) * kDecodeBr;
  const int rows = min(kDecodeBr, p.rows - q0);
  const std::int64_t first = static_cast<std::int64_t>(gh) * p.rows + q0;  // row index within one split
  if (tid < rows) {
    float mx = -INFINITY;
    for (int s = 0; s < p.splits; ++s) mx = fmaxf(mx, p.lpart[s * p.total_rows + first + tid]);
    float sum = 0.f;
    for (int s = 0; s < p.splits; ++s) {
      const float x = p.lpart[s * p.total_rows + first + tid];
      const float e = x == -INFINITY ? 0.f : expf(x - mx);
      w_s[tid * p.splits + s] = e;
      sum += e;
    }
    // sum ≥ 1 (the largest term is exp(0)), or 0 for a row that sees no key in any split: O = 0, L = −inf.
    const float inv = sum > 0.f ? 1.f / sum : 0.f;
    for (int s = 0; s < p.splits; ++s) w_s[tid * p.splits + s] *= inv;
    p.lse[first + tid] = sum > 0.f ? mx + logf(sum) : -INFINITY;
  }
  __syncthreads();
  constexpr int kQuads = D / 4;
  T* const o = static_cast<T*>(p.o);
  for (int e = tid; e < rows * kQuads; e += kCombineThreads) {
    const int r = e / kQuads;
    const int c = (e % kQuads) * 4;
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int s = 0; s < p.splits; ++s) {
      const float w = w_s[r * p.splits + s];
      const float4 x = *reinterpret_cast<const float4*>(p.opart + (s * p.total_rows + first + r) * D + c);
      acc.x = fmaf(w, x.x, acc.x);
      acc.y = fmaf(w, x.y, acc.y);
      acc.z = fmaf(w, x.z, acc.z);
      acc.w = fmaf(w, x.w, acc.w);
    }
    *reinterpret_cast<uint2*>(o + (first + r) * D + c) = make_uint2(pack2<T>(acc.x, acc.y), pack2<T>(acc.z, acc.w));
  }
}

}  // namespace iosim::gpu::kern

namespace iosim::gpu::detail {

template <class T, class Tr>
void launch_flashdecode(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream) {
  const DecodePlan plan = decode_plan(spec);
  kern::DecodeParams p{buf.device(Tensor::Q),
                       buf.device(Tensor::K),
                       buf.device(Tensor::V),
                       buf.device(Tensor::O),
                       device_ptr<float>(buf, Tensor::L),
                       device_ptr<float>(buf, Tensor::Opart),
                       device_ptr<float>(buf, Tensor::Lpart),
                       plan.rows,
                       plan.grid_heads,
                       plan.group_div,
                       plan.kv_heads,
                       spec.n_kv,
                       plan.splits,
                       plan.tiles_per_split,
                       plan.m_tiles,
                       static_cast<std::int64_t>(spec.batch) * spec.heads * spec.n,
                       1.f / std::sqrt(static_cast<float>(Tr::kD)),
                       nullptr,
                       0,
                       0,
                       spec.n,
                       described(spec).packed_heads ? 1 : 0,
                       spec.causal ? 1 : 0,
                       spec.causal ? spec.window : 0,
                       spec.causal && spec.window > 0 ? spec.window : 1 << 30,
                       spec.n_kv - spec.n};
  if (spec.page_size > 0) {  // paged K/V: unsupported_in_build checked the page size is a power of two
    p.block_table = static_cast<const int*>(buf.device(Tensor::BT));
    p.page_shift = page_shift_of(spec.page_size);
    p.pages = static_cast<int>(kv_pages(spec));
  }
  using TrCols = kern::DecodeTraits<Tr::kD, Tr::kBc, Tr::kStages, true>;
  // Grid heads of at most 16 rows: the warps split columns (all four compute); else rows.
  const auto split = plan.rows <= 16 ? kern::flashdecode_split<T, TrCols> : kern::flashdecode_split<T, Tr>;
  allow_dynamic_smem(split, Tr::kSmemBytes);
  const dim3 grid(static_cast<unsigned>(plan.m_tiles * plan.splits), static_cast<unsigned>(spec.batch * plan.grid_heads));
  split<<<grid, Tr::kThreads, Tr::kSmemBytes, stream>>>(p);
  IOSIM_CUDA_CHECK_LAUNCH();
  if (plan.splits > 1) {
    const std::size_t smem = static_cast<std::size_t>(kern::kDecodeBr) * plan.splits * sizeof(float);
    const dim3 cgrid(static_cast<unsigned>(plan.m_tiles), static_cast<unsigned>(spec.batch * plan.grid_heads));
    kern::flashdecode_combine<T, Tr::kD><<<cgrid, kern::kCombineThreads, smem, stream>>>(p);
    IOSIM_CUDA_CHECK_LAUNCH();
  }
}

/// The kernels as rows of the menu (cuda/kernels/menu.csv, menu_entry.cuh), for flashdecode and
/// flashdecode-heads alike: B_r = kDecodeBr, kDecodeWarps warps, 1 to 3 stages.
struct FlashdecodeKernel {
  static constexpr Direction kPass = Direction::fwd;
  template <int D, int BR, int BC, int WARPS, int STAGES>
  static constexpr bool accepts() {
    return compiled_head_dim(D) && BR == kern::kDecodeBr && WARPS == kern::kDecodeWarps && BC % kern::kDecodeSub == 0 &&
           STAGES >= 1 && STAGES <= 3;
  }
  template <int D, int, int BC, int, int STAGES>
  using Traits = kern::DecodeTraits<D, BC, STAGES>;
  template <class T, class Tr>
  static void launch(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream) {
    launch_flashdecode<T, Tr>(spec, buf, stream);
  }
};

}  // namespace iosim::gpu::detail
