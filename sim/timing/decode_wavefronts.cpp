#include "sim/timing/decode_wavefronts.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace iosim {

namespace {

constexpr std::uint64_t kLanes = 32;
constexpr std::uint64_t kBanks = 32;
constexpr std::uint64_t kWarps = 4;            ///< kDecodeWarps
constexpr std::uint64_t kWarpRows = 16;        ///< rows of a warp's fragments (and of a column-mode block)
constexpr std::uint64_t kRowModeCols = 64;     ///< kDecodeSub: columns of one compute step by rows
constexpr std::uint64_t kLdmatrixWavefronts = 4;  ///< ldmatrix.x4: 512 bytes, conflict-free (swizzled)
constexpr std::uint64_t kChunkElems = 8;       ///< 16-byte chunks of 16-bit elements
constexpr std::uint64_t kCombineQuad = 4;      ///< the combine's output loop: 4 columns (a float4) a thread
constexpr std::uint64_t kFp32Bytes = 4;        ///< the partials, L and the weights

std::uint64_t up_div(std::uint64_t a, std::uint64_t b) { return b == 0 ? 0 : (a + b - 1) / b; }

/// Word of element (row, col) of a 16-bit tile `width` elements wide, 16-byte chunks XOR-swizzled
/// (flashdecode.cuh's decode_swz).
std::int64_t swizzled_word(std::uint64_t row, std::uint64_t col, std::uint64_t width) {
  return static_cast<std::int64_t>((row * width + (col ^ ((row & 7) << 3))) / 2);
}

/// Column mode's merge (decode_merge_and_store) for a block of `rows` rows.
SmemWavefronts merge_wavefronts(std::uint64_t rows, std::uint64_t d) {
  SmemWavefronts out;
  std::int64_t a[kLanes];
  for (std::uint64_t w = 0; w < kWarps; ++w) {
    for (std::uint64_t h = 0; h < 2; ++h) {
      // m and l: the first lane of each quad, one word a row.
      for (std::uint64_t l = 0; l < kLanes; ++l) a[l] = (l & 3) == 0 ? static_cast<std::int64_t>(w * 16 + l / 4 + 8 * h) : -1;
      out.st += 2.0 * static_cast<double>(warp_access_wavefronts(a, 1));
      // O: a float2 a lane for each of the d / 8 column tiles.
      for (std::uint64_t no = 0; no < d / 8; ++no) {
        for (std::uint64_t l = 0; l < kLanes; ++l) {
          a[l] = static_cast<std::int64_t>((w * 16 + l / 4 + 8 * h) * d + no * 8 + (l & 3) * 2);
        }
        out.st += static_cast<double>(warp_access_wavefronts(a, 2));
      }
    }
  }
  // The read back: element pairs e < rows · d / 2, thread e mod 128 (warps of 32 consecutive e); each
  // reads every warp's m, l (one word of its row) and O (a float2).
  const std::uint64_t pairs = rows * (d / 2);
  std::int64_t m[kLanes], o[kLanes];
  for (std::uint64_t e0 = 0; e0 < pairs; e0 += kLanes) {
    for (std::uint64_t w = 0; w < kWarps; ++w) {
      for (std::uint64_t l = 0; l < kLanes; ++l) {
        const std::uint64_t e = e0 + l;
        const bool on = e < pairs;
        const std::uint64_t r = e / (d / 2), c = (e % (d / 2)) * 2;
        m[l] = on ? static_cast<std::int64_t>(w * 16 + r) : -1;
        o[l] = on ? static_cast<std::int64_t>((w * 16 + r) * d + c) : -1;
      }
      out.ld += 2.0 * static_cast<double>(warp_access_wavefronts(m, 1)) + static_cast<double>(warp_access_wavefronts(o, 2));
    }
  }
  return out;
}

/// Row mode with one split: each computing warp stages its 16 rows of O in Q's tile (a packed pair a
/// lane) and reads them back 16 bytes a lane, lanes of rows past the block's skipped.
SmemWavefronts staged_output_wavefronts(std::uint64_t rows, std::uint64_t d) {
  SmemWavefronts out;
  std::int64_t a[kLanes];
  for (std::uint64_t w = 0; w < up_div(rows, kWarpRows); ++w) {
    const std::uint64_t wrow = w * kWarpRows;
    for (std::uint64_t h = 0; h < 2; ++h) {
      for (std::uint64_t no = 0; no < d / 8; ++no) {
        for (std::uint64_t l = 0; l < kLanes; ++l) a[l] = swizzled_word(wrow + l / 4 + 8 * h, no * 8 + (l & 3) * 2, d);
        out.st += static_cast<double>(warp_access_wavefronts(a, 1));
      }
    }
    const std::uint64_t chunks = d / kChunkElems;
    for (std::uint64_t it = 0; it < kWarpRows * chunks / kLanes; ++it) {
      for (std::uint64_t l = 0; l < kLanes; ++l) {
        const std::uint64_t c = l + it * kLanes, r = wrow + c / chunks;
        a[l] = r < rows ? swizzled_word(r, (c % chunks) * kChunkElems, d) : -1;
      }
      out.ld += static_cast<double>(warp_access_wavefronts(a, 4));
    }
  }
  return out;
}

}  // namespace

std::uint64_t warp_access_wavefronts(const std::int64_t (&first)[32], std::uint64_t width) {
  std::vector<std::int64_t> words;
  for (const std::int64_t f : first) {
    if (f < 0) continue;
    for (std::uint64_t k = 0; k < width; ++k) words.push_back(f + static_cast<std::int64_t>(k));
  }
  std::sort(words.begin(), words.end());
  words.erase(std::unique(words.begin(), words.end()), words.end());
  std::array<std::uint64_t, kBanks> per_bank{};
  for (const std::int64_t w : words) ++per_bank[static_cast<std::uint64_t>(w) % kBanks];
  return *std::max_element(per_bank.begin(), per_bank.end());
}

SmemWavefronts decode_split_wavefronts(const BlockProfile& p, std::uint64_t d, std::uint64_t bc) {
  SmemWavefronts out;
  if (p.runs.empty() || d == 0) return out;
  // The block's rows: its first product's m, or (no K/V tile in its split) its Q tile's 16-bit elements over d.
  std::uint64_t rows = 0;
  double ldmatrix = 0;
  for (const SegmentRun& run : p.runs) {
    if (run.segment.matmuls.empty()) continue;
    const MatmulShape& s = run.segment.matmuls.front();  // S = Q K_jᵀ: m rows, n columns of the tile
    if (rows == 0) rows = s.m;
    const std::uint64_t cols = bc != 0 ? bc : s.n;
    double per_step = 0;
    if (s.m <= kWarpRows) {
      // By columns: warp w takes columns [w · bc / 4, (w + 1) · bc / 4) of the tile, if it has any.
      const std::uint64_t quarter = std::max<std::uint64_t>(1, cols / kWarps);
      per_step = static_cast<double>(std::min(kWarps, up_div(s.n, quarter)) * 2 * (d / 16) * (quarter / 16));
    } else {
      // By rows: each warp with a row, the tile's columns 64 at a time (the last step's whole 64).
      per_step = static_cast<double>(up_div(s.m, kWarpRows) * up_div(s.n, kRowModeCols) * 2 * (d / 16) *
                                     (kRowModeCols / 16));
    }
    ldmatrix += per_step * static_cast<double>(run.count);
  }
  const Segment& last = p.runs.back().segment;
  if (rows == 0) rows = static_cast<std::uint64_t>(p.runs.front().segment.load_bytes) / (2 * d);
  if (rows == 0) return out;
  const bool by_columns = rows <= kWarpRows;
  // Q's fragments: every warp by columns, each warp with a row by rows.
  ldmatrix += static_cast<double>((by_columns ? kWarps : up_div(rows, kWarpRows)) * (d / 16));
  out.ld = ldmatrix * static_cast<double>(kLdmatrixWavefronts);
  if (by_columns) {
    out.add(merge_wavefronts(rows, d));
  } else if (last.store_bytes < static_cast<double>(rows * 4 * d)) {
    out.add(staged_output_wavefronts(rows, d));  // one split: O and L, not the fp32 partials
  }
  return out;
}

SmemWavefronts decode_combine_wavefronts(std::uint64_t rows, std::uint64_t splits, std::uint64_t d) {
  SmemWavefronts out;
  std::int64_t a[kLanes];
  // The weights: thread t < rows (warps of 32 consecutive rows) stores w_s[t · s + k] for every split k,
  // then loads and stores each again: 1 load and 2 stores of one word a lane, a split.
  for (std::uint64_t w0 = 0; w0 < rows; w0 += kLanes) {
    for (std::uint64_t k = 0; k < splits; ++k) {
      for (std::uint64_t l = 0; l < kLanes; ++l) {
        a[l] = w0 + l < rows ? static_cast<std::int64_t>((w0 + l) * splits + k) : -1;
      }
      const auto wf = static_cast<double>(warp_access_wavefronts(a, 1));
      out.st += 2 * wf;
      out.ld += wf;
    }
  }
  // The output: element quads e < rows · d / 4, thread e mod 128 (warps of 32 consecutive e); each loads
  // the weight of its row, a split.
  const std::uint64_t quads_per_row = d / kCombineQuad, quads = rows * quads_per_row;
  for (std::uint64_t e0 = 0; e0 < quads; e0 += kLanes) {
    for (std::uint64_t k = 0; k < splits; ++k) {
      for (std::uint64_t l = 0; l < kLanes; ++l) {
        const std::uint64_t e = e0 + l;
        a[l] = e < quads ? static_cast<std::int64_t>((e / quads_per_row) * splits + k) : -1;
      }
      out.ld += static_cast<double>(warp_access_wavefronts(a, 1));
    }
  }
  return out;
}

SmemWavefronts decode_combine_wavefronts(const BlockProfile& p, std::uint64_t d, std::uint64_t out_bytes) {
  double loads = 0, stores = 0;
  for (const SegmentRun& run : p.runs) {
    loads += run.segment.load_bytes * static_cast<double>(run.count);
    stores += run.segment.store_bytes * static_cast<double>(run.count);
  }
  if (d == 0) return {};
  // stores = rows · (d · out_bytes + 4); loads = splits · rows · (d + 1) · 4.
  const auto rows = static_cast<std::uint64_t>(std::llround(stores / static_cast<double>(d * out_bytes + kFp32Bytes)));
  if (rows == 0) return {};
  const auto splits =
      static_cast<std::uint64_t>(std::llround(loads / static_cast<double>(rows * (d + 1) * kFp32Bytes)));
  return decode_combine_wavefronts(rows, splits, d);
}

}  // namespace iosim
