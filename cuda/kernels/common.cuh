// Device primitives shared by the attention kernels: tensor-core MMA (mma.sync m16n8k16, fp16/bf16
// in, fp32 accumulate), ldmatrix, cp.async, packing, XOR-swizzled shared-memory tiles, tile copies between
// HBM and shared memory, and a warp-level GEMM whose operands sit in shared memory.
//
// Fragment layouts (PTX ISA, "Matrix Fragments for mma.m16n8k16"), with g = lane / 4, t = lane % 4:
//   A (16 × 16, row-major), 4 × b32:  a0 = A[g][2t..2t+1]   a1 = A[g+8][2t..]   a2 = A[g][2t+8..]   a3 = A[g+8][2t+8..]
//   B (16 × 8, k × n),      2 × b32:  b0 = B[2t..2t+1][g]   b1 = B[2t+8..2t+9][g]
//   C (16 × 8, fp32),       4 × f32:  c0,c1 = C[g][2t], C[g][2t+1]   c2,c3 = C[g+8][2t], C[g+8][2t+1]
// ldmatrix .x4 reads four 8 × 8 matrices of 16-bit values; lanes 8i..8i+7 give the row addresses of
// matrix i, and register i of lane l receives row l/4, columns 2(l%4), 2(l%4)+1 of matrix i (of its
// transpose with .trans). The four loaders below place those matrices so that the registers come
// out as the A and B fragments above, whether the operand is stored in shared memory as [m][k] or
// [k][m] (A), [n][k] or [k][n] (B).
//
// Shared-memory tiles are row-major, unpadded (a row of W 16-bit elements is 2W bytes) and
// XOR-swizzled in 16-byte chunks, as CUTLASS's Swizzle<3,3,3> and FlashAttention-2 lay them out:
// chunk c of row r sits at chunk c ^ (r mod 8) of that row (for W ≥ 64, 128-byte rows or wider; for
// W = 32, 64-byte rows, two to a 128-byte line: c ^ (⌊r/2⌋ mod 4)). The 8 row addresses of one ldmatrix
// matrix (8 consecutive rows, one logical chunk) then fall in 8 distinct groups of 4 banks, as do the
// 32-bit fragment stores (rows g = 0..7, columns 2t): no bank conflicts, and each 16-byte cp.async
// lands in the same 128-byte shared line as its neighbours of one global line (16-byte padding breaks
// that and makes the L2 count each copy's sectors 1.5×, docs/validation.md). Tiles start 128-byte
// aligned and a warp's slice of rows starts at a multiple of 8 rows.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace iosim::gpu::kern {

inline constexpr int kWarpSize = 32;
inline constexpr int kChunkElems = 8;     ///< 16-bit elements per 16-byte global access
inline constexpr float kLog2e = 1.4426950408889634f;
inline constexpr unsigned kFullMask = 0xffffffffu;
inline constexpr std::size_t kMaxSmemOptin = 232448;  ///< largest shared-memory opt-in per block of sm_80 … sm_90 (H100/H200; unsupported() checks the device)

template <class T>
inline constexpr bool kIsElement = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

// ---- the causal mask at tile granularity (sim/core/mask.cpp counts the same tiles) ---------------
// Row r sees key c when c ≤ r + n_kv − n (aligned to the bottom right).

/// K/V tiles of B_c keys a block of query rows [q0, q0 + B_r) visits: [0, result). Causal: up to the
/// tile of the last key its last row (within n) sees; 0 when that row sees none.
__host__ __device__ constexpr int causal_kv_tiles(bool causal, int q0, int n, int n_kv, int br, int bc) {
  const int tiles = (n_kv + bc - 1) / bc;
  if (!causal) return tiles;
  const int last_row = (q0 + br < n ? q0 + br : n) - 1;
  const int most = last_row + n_kv - n;  // the last key it sees
  if (most < 0) return 0;
  return most / bc + 1 < tiles ? most / bc + 1 : tiles;
}

/// The first K/V tile of B_c keys that a block of query rows from q0 sees under a sliding window of
/// `window` keys (0: none, every tile from 0): the tile of the first key of the block's first row that
/// sees any, max(0, r + n_kv − n − window + 1), as Mask::kv_for_rows (sim/core/mask.h) counts them.
__host__ __device__ constexpr int window_first_kv_tile(int window, int q0, int n, int n_kv, int bc) {
  if (window <= 0) return 0;
  const int offset = n_kv - n;
  const int first_row = q0 > -offset ? q0 : -offset;
  const int first_key = first_row + offset - window + 1;
  return first_key > 0 ? first_key / bc : 0;
}

/// The first Q tile of B_r rows that sees a key of [c0, …): tiles before it are skipped (all of
/// them, result = ⌈n / B_r⌉, when no row sees key c0). 0 when not causal.
__host__ __device__ constexpr int causal_first_q_tile(bool causal, int c0, int n, int n_kv, int br) {
  if (!causal) return 0;
  const int first_row = c0 - (n_kv - n);  // the first row that sees key c0
  if (first_row >= n) return (n + br - 1) / br;
  return first_row <= 0 ? 0 : first_row / br;
}

/// One past the last Q tile of B_r rows that sees a key of a block of keys ending at c_end (its last
/// key c_end − 1) under a sliding window of `window` keys: rows up to c_end − 1 − (n_kv − n) + window − 1
/// see that key, later rows' windows have passed the whole block. ⌈n / B_r⌉ without a window; 0 when
/// no row sees it. With causal_first_q_tile: the Q tiles [first, end) Mask::q_for_cols counts, none when
/// first ≥ end.
__host__ __device__ constexpr int window_end_q_tile(int window, int c_end, int n, int n_kv, int br) {
  const int q_tiles = (n + br - 1) / br;
  if (window <= 0) return q_tiles;
  const int end_row = c_end - 1 - (n_kv - n) + window;  // rows [0, end_row) may see key c_end − 1
  if (end_row <= 0) return 0;
  return end_row >= n ? q_tiles : (end_row - 1) / br + 1;
}

// ---- conversions ---------------------------------------------------------------------------------

/// Two floats rounded to the element type and packed into one 32-bit register (lo in the low half).
template <class T>
__device__ __forceinline__ std::uint32_t pack2(float lo, float hi) {
  static_assert(kIsElement<T>);
  std::uint32_t r;
  if constexpr (std::is_same_v<T, __half>) {
    const __half2 h = __floats2half2_rn(lo, hi);
    __builtin_memcpy(&r, &h, sizeof r);
  } else {
    const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    __builtin_memcpy(&r, &h, sizeof r);
  }
  return r;
}

/// The two elements of a packed register as floats.
template <class T>
__device__ __forceinline__ float2 unpack2(std::uint32_t r) {
  static_assert(kIsElement<T>);
  if constexpr (std::is_same_v<T, __half>) {
    __half2 h;
    __builtin_memcpy(&h, &r, sizeof r);
    return __half22float2(h);
  } else {
    __nv_bfloat162 h;
    __builtin_memcpy(&h, &r, sizeof r);
    return __bfloat1622float2(h);
  }
}

template <class T>
__device__ __forceinline__ float to_float(T x) {
  if constexpr (std::is_same_v<T, __half>) {
    return __half2float(x);
  } else {
    return __bfloat162float(x);
  }
}

/// 2^x by the special-function unit (ex2.approx.ftz): one instruction, 2^-inf = +0.
__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// ---- tensor cores --------------------------------------------------------------------------------

/// c += a · b for one m16n8k16 tile, fp32 accumulate.
template <class T>
__device__ __forceinline__ void mma16816(float (&c)[4], const std::uint32_t (&a)[4], std::uint32_t b0, std::uint32_t b1) {
  static_assert(kIsElement<T>);
  if constexpr (std::is_same_v<T, __half>) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}

__device__ __forceinline__ std::uint32_t smem_addr(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

/// Four 8 × 8 matrices of 16-bit values (volatile: ordered with the barriers around it).
__device__ __forceinline__ void ldsm_x4(std::uint32_t (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(p)));
}

/// The same, each matrix transposed.
__device__ __forceinline__ void ldsm_x4_trans(std::uint32_t (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(p)));
}

/// Hides v's value from the optimiser at this point (an empty asm that "changes" it): what is computed
/// from it after is computed here, not hoisted out of the loops and kept live. The swizzled offsets
/// below differ for each column block, so ptxas would otherwise keep one register per block and
/// spill the kernels that already use most of the 255 (flash1 forward at d = 128).
__device__ __forceinline__ int opaque(int v) {
  asm volatile("" : "+r"(v));
  return v;
}

/// Element offset of (row, col) in a swizzled shared tile `width` 16-bit elements wide (32, 64, 128 or
/// 256): the chunk bits of col (bits 3 and up) XOR-ed with bits of row, the element within its
/// 16-byte chunk kept. Any col: pairs (col even) and chunks (col a multiple of 8) stay whole.
__host__ __device__ constexpr int swz(int row, int col, int width) {
  const int x = width >= 64 ? (row & 7) : ((row >> 1) & 3);
  return row * width + (col ^ (x << 3));
}

/// swz(row0 + r, col0 + c, width) for row0 a multiple of 8 and col0 a multiple of 16 below width, from
/// lane_off = swz(r, c, width) (r < 16, c ∈ {0, 8}): col0 flips only chunk bits that the lane's own
/// part leaves 0 under the XOR, so the address is one XOR and one add of what the loops know — the
/// loaders keep one offset register per operand instead of one per column block.
__host__ __device__ constexpr int swz_shift(int lane_off, int row0, int col0, int width) {
  return (lane_off ^ col0) + row0 * width;
}
__device__ __forceinline__ int swz_at(int lane_off, int row0, int col0, int width) {
  return swz_shift(opaque(lane_off), row0, col0, width);
}

/// Checked at compile time for every tile width: (1) each row's chunks are a permutation of that row;
/// (2) the 8 rows of an ldmatrix matrix (rows r0 … r0 + 7, r0 a multiple of 8, one chunk) fall in 8
/// distinct 16-byte bank groups; (3) a warp's 32-bit fragment accesses (rows r0 + g, columns
/// c0 + 2t, g < 8, t < 4) fall in 32 distinct banks; (4) swz_shift is swz for the loaders' splits.
constexpr bool swizzle_ok(int width) {
  for (int r = 0; r < 64; ++r) {
    unsigned long long seen = 0;
    for (int c = 0; c < width; c += 8) {
      const int off = swz(r, c, width) - r * width;
      if (off < 0 || off >= width || off % 8 != 0 || ((seen >> (off / 8)) & 1) != 0) return false;
      seen |= 1ull << (off / 8);
    }
  }
  for (int r0 = 0; r0 < 64; r0 += 8) {
    for (int c = 0; c < width; c += 8) {
      unsigned groups = 0;
      unsigned long long banks = 0;
      for (int i = 0; i < 8; ++i) {
        const int group = (swz(r0 + i, c, width) / 8) % 8;
        if (((groups >> group) & 1) != 0) return false;
        groups |= 1u << group;
        for (int t = 0; t < 4; ++t) {
          const int bank = (swz(r0 + i, c + 2 * t, width) / 2) % 32;
          if (((banks >> bank) & 1) != 0) return false;
          banks |= 1ull << bank;
        }
      }
    }
  }
  for (int r = 0; r < 16; ++r) {
    for (int lc = 0; lc <= 8; lc += 8) {
      for (int row0 = 0; row0 < 64; row0 += 8) {
        for (int col0 = 0; col0 < width; col0 += 16) {
          if (swz_shift(swz(r, lc, width), row0, col0, width) != swz(row0 + r, col0 + lc, width)) return false;
        }
      }
    }
  }
  return true;
}
static_assert(swizzle_ok(32) && swizzle_ok(64) && swizzle_ok(128) && swizzle_ok(256),
              "the swizzle is not a conflict-free permutation");

// Fragment loaders. `s` points at element [0][0] of a swizzled shared tile `stride` elements wide;
// row offsets (m0, n0 or k0 where it is the row) are multiples of 8, column offsets multiples of 16.

/// A fragment of the 16 × 16 block at (m0, k0) of A, stored as [m][k].
template <class T>
__device__ __forceinline__ void load_a_mk(std::uint32_t (&a)[4], const T* s, int stride, int m0, int k0, int lane) {
  ldsm_x4(a, s + swz_at(swz(lane & 15, (lane >> 4) << 3, stride), m0, k0, stride));
}

/// A fragment of the 16 × 16 block at (m0, k0) of A, stored transposed as [k][m].
template <class T>
__device__ __forceinline__ void load_a_km(std::uint32_t (&a)[4], const T* s, int stride, int m0, int k0, int lane) {
  const int i = lane >> 3;  // matrix: a0 (k lo, m lo), a1 (k lo, m hi), a2 (k hi, m lo), a3 (k hi, m hi)
  ldsm_x4_trans(a, s + swz_at(swz((lane & 7) + ((i >> 1) << 3), (i & 1) << 3, stride), k0, m0, stride));
}

/// B fragments of two n8 tiles, (k0..k0+15) × (n0..n0+15) of B stored as [n][k]:
/// b[0], b[1] for columns n0..n0+7, b[2], b[3] for n0+8..n0+15.
template <class T>
__device__ __forceinline__ void load_b_nk(std::uint32_t (&b)[4], const T* s, int stride, int n0, int k0, int lane) {
  ldsm_x4(b, s + swz_at(swz((lane & 7) + ((lane >> 4) << 3), ((lane >> 3) & 1) << 3, stride), n0, k0, stride));
}

/// The same for B stored as [k][n] (V in P·V, dO in Pᵀ·dO, …).
template <class T>
__device__ __forceinline__ void load_b_kn(std::uint32_t (&b)[4], const T* s, int stride, int n0, int k0, int lane) {
  ldsm_x4_trans(b, s + swz_at(swz((lane & 7) + (((lane >> 3) & 1) << 3), (lane >> 4) << 3, stride), k0, n0, stride));
}

/// Row and column, inside a warp's MT × NT block of C fragments, of accumulator element e of tile
/// (mt, nt): rows g and g + 8, columns 2t and 2t + 1.
__device__ __forceinline__ int frag_row(int mt, int e, int lane) { return mt * 16 + (lane >> 2) + ((e >> 1) << 3); }
__device__ __forceinline__ int frag_col(int nt, int e, int lane) { return nt * 8 + ((lane & 3) << 1) + (e & 1); }

// ---- warp GEMM on shared-memory operands -----------------------------------------------------------

enum class Layout : std::uint8_t { mk, km, nk, kn };

/// acc[MT][NT] += A[m0 .. m0+16MT, 0..K) · B[0..K, n0 .. n0+8NT), A and B in shared memory.
template <class T, int MT, int NT, int K, Layout LA, Layout LB>
__device__ __forceinline__ void warp_gemm(float (&acc)[MT][NT][4], const T* a_s, int a_stride, const T* b_s, int b_stride,
                                          int m0, int n0, int lane) {
  static_assert(NT % 2 == 0 && K % 16 == 0);
  static_assert(LA == Layout::mk || LA == Layout::km);
  static_assert(LB == Layout::nk || LB == Layout::kn);
#pragma unroll
  for (int k = 0; k < K; k += 16) {
    std::uint32_t a[MT][4];
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
      if constexpr (LA == Layout::mk) {
        load_a_mk(a[mt], a_s, a_stride, m0 + mt * 16, k, lane);
      } else {
        load_a_km(a[mt], a_s, a_stride, m0 + mt * 16, k, lane);
      }
    }
#pragma unroll
    for (int np = 0; np < NT / 2; ++np) {
      std::uint32_t b[4];
      if constexpr (LB == Layout::nk) {
        load_b_nk(b, b_s, b_stride, n0 + np * 16, k, lane);
      } else {
        load_b_kn(b, b_s, b_stride, n0 + np * 16, k, lane);
      }
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
        mma16816<T>(acc[mt][2 * np], a[mt], b[0], b[1]);
        mma16816<T>(acc[mt][2 * np + 1], a[mt], b[2], b[3]);
      }
    }
  }
}

/// How NW warps split an M × N output into a WM × WN grid of warp tiles of MT m16 × NT n8 tiles:
/// WM = min(NW, M/16) warps down, the rest across; ok when everything divides and NT is even.
struct WarpGridShape {
  int wm = 0;
  int wn = 0;
  int mt = 0;
  int nt = 0;
  bool ok = false;
};
constexpr WarpGridShape warp_grid(int m, int n, int nw) {
  WarpGridShape s;
  if (m % 16 != 0 || m < 16 || nw < 1) return s;
  s.wm = m / 16 < nw ? m / 16 : nw;
  if (nw % s.wm != 0 || (m / 16) % s.wm != 0) return s;
  s.wn = nw / s.wm;
  if (n % (8 * s.wn) != 0) return s;
  s.mt = m / 16 / s.wm;
  s.nt = n / 8 / s.wn;
  s.ok = s.nt >= 2 && s.nt % 2 == 0;
  return s;
}

template <int M, int N, int NW>
struct WarpGrid {
  static constexpr WarpGridShape kShape = warp_grid(M, N, NW);
  static_assert(kShape.ok, "the warps do not tile this output");
  static constexpr int kWM = kShape.wm;
  static constexpr int kMT = kShape.mt;
  static constexpr int kNT = kShape.nt;
  __device__ static int m0(int warp) { return (warp % kWM) * kMT * 16; }
  __device__ static int n0(int warp) { return (warp / kWM) * kNT * 8; }
};

// ---- HBM ↔ shared memory -----------------------------------------------------------------------------

/// 16 bytes global → shared, through L2 only (.cg); zero-filled when !valid (nothing is read).
__device__ __forceinline__ void cp_async_16(void* dst, const void* src, bool valid) {
  const int src_bytes = valid ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(smem_addr(dst)), "l"(src), "r"(src_bytes)
               : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}
/// Waits until at most `pending` (0 ≤ pending ≤ MAX, known only at run time) of this thread's
/// cp.async groups are still in flight: wait_group takes an immediate, so one branch per value.
template <int MAX>
__device__ __forceinline__ void cp_async_wait_upto(int pending) {
  if constexpr (MAX == 0) {
    cp_async_wait<0>();
  } else {
    if (pending >= MAX) {
      cp_async_wait<MAX>();
    } else {
      cp_async_wait_upto<MAX - 1>(pending);
    }
  }
}

/// Where the rows of one K (or V) sequence lie: contiguous from `base` (table null), or paged
/// (sim/core/paging.h): row r in slot table[r >> page_shift] of the cache at `base`, at row
/// r mod 2^page_shift of the slot. The table entry is read where the row is copied, through the
/// read-only cache: a tile's entries are a few bytes that every thread of the block shares.
template <class T>
struct KvRows {
  const T* base = nullptr;
  const int* table = nullptr;  ///< this sequence's row of the block table; nullptr: contiguous
  int page_shift = 0;          ///< log2 of the page size
  __device__ __forceinline__ const T* row(int r, int cols) const {
    if (table == nullptr) return base + static_cast<std::int64_t>(r) * cols;
    const std::int64_t slot = __ldg(table + (r >> page_shift));
    return base + ((slot << page_shift) + (r & ((1 << page_shift) - 1))) * cols;
  }
};

/// Row r of a row-major [rows × cols] matrix at `src`, or of a K/V sequence (KvRows).
template <class T>
__device__ __forceinline__ const T* row_ptr(const T* src, int r, int cols) {
  return src + static_cast<std::int64_t>(r) * cols;
}
template <class T>
__device__ __forceinline__ const T* row_ptr(const KvRows<T>& src, int r, int cols) {
  return src.row(r, cols);
}

/// Rows [row0, row0 + ROWS) of a row-major [rows × COLS] global matrix into a swizzled shared tile
/// COLS wide, by NTHREADS threads (this one is `tid`), 16 bytes each; rows ≥ row_end are
/// zero-filled and not read. Chunk c goes to thread c % NTHREADS, the same mapping as store_rows, so
/// a thread that stores a chunk and later reloads it touches only what it wrote itself. Eight
/// consecutive threads copy one 128-byte global line into one 128-byte shared line.
template <int ROWS, int COLS, int NTHREADS, class T, class Src>
__device__ __forceinline__ void load_rows_async(T* dst, const Src& src, int row0, int row_end, int tid) {
  constexpr int kChunksPerRow = COLS / kChunkElems;
  constexpr int kChunks = ROWS * kChunksPerRow;
  static_assert(COLS % kChunkElems == 0 && (COLS == 32 || COLS == 64 || COLS == 128 || COLS == 256));
#pragma unroll
  for (int it = 0; it < (kChunks + NTHREADS - 1) / NTHREADS; ++it) {
    const int c = opaque(tid) + it * NTHREADS;
    if (kChunks % NTHREADS != 0 && c >= kChunks) break;
    const int r = c / kChunksPerRow;
    const int col = (c % kChunksPerRow) * kChunkElems;
    const bool valid = row0 + r < row_end;
    const T* from = row_ptr(src, valid ? row0 + r : 0, COLS) + col;
    cp_async_16(dst + swz(r, col, COLS), from, valid);
  }
}

/// The reverse: a swizzled shared tile to rows [row0, row0 + ROWS) of global memory, 16-byte stores,
/// rows ≥ row_end skipped. `src` may point at a row of a larger tile that is a multiple of 8.
template <int ROWS, int COLS, int NTHREADS, class T>
__device__ __forceinline__ void store_rows(T* dst, const T* src, int row0, int row_end, int tid) {
  constexpr int kChunksPerRow = COLS / kChunkElems;
  constexpr int kChunks = ROWS * kChunksPerRow;
  static_assert(COLS % kChunkElems == 0 && (COLS == 32 || COLS == 64 || COLS == 128 || COLS == 256));
#pragma unroll
  for (int it = 0; it < (kChunks + NTHREADS - 1) / NTHREADS; ++it) {
    const int c = opaque(tid) + it * NTHREADS;
    if (kChunks % NTHREADS != 0 && c >= kChunks) break;
    const int r = c / kChunksPerRow;
    const int col = (c % kChunksPerRow) * kChunkElems;
    if (row0 + r < row_end) {
      *reinterpret_cast<uint4*>(dst + static_cast<std::int64_t>(row0 + r) * COLS + col) =
          *reinterpret_cast<const uint4*>(src + swz(r, col, COLS));
    }
  }
}

/// Packed pair of elements at (row, col) of a swizzled shared tile `stride` elements wide (col even).
template <class T>
__device__ __forceinline__ std::uint32_t& smem_pair(T* s, int stride, int row, int col) {
  return *reinterpret_cast<std::uint32_t*>(s + swz(opaque(row), col, stride));
}

}  // namespace iosim::gpu::kern
