// The attention mask at tile granularity: which tiles of the n × n_kv score matrix a schedule can skip
// (every score masked), which it computes whole (none masked) and which it computes and masks (the
// tiles an edge of the mask crosses).
//
// Under the causal mask query row r sees key c when c ≤ r + (n_kv − n) (bottom-right alignment). A
// sliding window of W keys (which needs the causal mask) also requires c > r + (n_kv − n) − W: the W
// keys ending at the row's diagonal, its own included. Without a mask every tile is whole.
//
// Each row sees one interval of keys, and both ends of it move right as the row moves down, so a block
// of rows sees one run of tiles: partly masked ones where the window's lower edge crosses, whole ones,
// then partly masked ones where the diagonal crosses.
#pragma once

#include <cstdint>

#include "sim/core/problem.h"
#include "sim/core/tiling.h"

namespace iosim {

/// K/V tiles seen by a block of query rows: [0, start) skipped, [start, full_lo) partly masked (the
/// window's edge), [full_lo, full_hi) whole, [full_hi, end) partly masked (the diagonal), [end, T_c)
/// skipped. All four are 0 when no row of the block sees a key.
struct KvRange {
  std::uint64_t start = 0;
  std::uint64_t full_lo = 0;
  std::uint64_t full_hi = 0;
  std::uint64_t end = 0;

  [[nodiscard]] bool empty() const { return start == end; }
};

/// Q tiles that see a block of key columns: [0, start) skipped, [start, full_lo) partly masked (the
/// diagonal), [full_lo, full_hi) whole, [full_hi, end) partly masked (the window's edge), [end, T_r)
/// skipped. All four are T_r when no row sees the block.
struct QRange {
  std::uint64_t start = 0;
  std::uint64_t full_lo = 0;
  std::uint64_t full_hi = 0;
  std::uint64_t end = 0;

  [[nodiscard]] bool empty() const { return start == end; }
};

class Mask {
 public:
  explicit Mask(const Problem& p)
      : causal_(p.causal),
        window_(static_cast<std::int64_t>(p.causal ? p.window : 0)),
        n_(static_cast<std::int64_t>(p.n)),
        n_kv_(static_cast<std::int64_t>(p.n_kv)),
        offset_(n_kv_ - n_) {}

  /// Whether some score is masked: otherwise every tile is whole and every block alike.
  [[nodiscard]] bool masks() const { return causal_; }
  /// Whether the blocks' work levels off: under a window a block of rows (or of keys) sees at most
  /// about W keys (rows), so past the edges every block does the same, and the first or the last
  /// block is the longest. Under the causal mask alone it grows evenly from the first to the last.
  [[nodiscard]] bool levels_off() const { return window_ != 0; }

  /// The K/V tiles of `cols` that query rows [r0, r1) see.
  [[nodiscard]] KvRange kv_for_rows(std::uint64_t r0, std::uint64_t r1, const Tiling& cols) const;
  /// The Q tiles of `rows` that see key columns [c0, c1).
  [[nodiscard]] QRange q_for_cols(std::uint64_t c0, std::uint64_t c1, const Tiling& rows) const;

  /// Whether query row r sees key c (the definition the ranges follow; tests compare against it).
  [[nodiscard]] bool sees(std::uint64_t r, std::uint64_t c) const {
    const auto ri = static_cast<std::int64_t>(r), ci = static_cast<std::int64_t>(c);
    if (!causal_) return true;
    return ci <= ri + offset_ && (window_ == 0 || ci > ri + offset_ - window_);
  }

 private:
  /// Keys [first_key(r), end_key(r)) are those row r sees (empty when end_key ≤ first_key).
  [[nodiscard]] std::int64_t first_key(std::int64_t r) const;
  [[nodiscard]] std::int64_t end_key(std::int64_t r) const;
  /// Rows [first_row(c), end_row(c)) are those that see key c.
  [[nodiscard]] std::int64_t first_row(std::int64_t c) const;
  [[nodiscard]] std::int64_t end_row(std::int64_t c) const;

  bool causal_;
  std::int64_t window_;  ///< 0: no window
  std::int64_t n_, n_kv_;
  std::int64_t offset_;  ///< n_kv − n
};

}  // namespace iosim
