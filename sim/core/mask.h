// The causal mask at tile granularity: which tiles of the n × n_kv score matrix a schedule can skip
// (every score masked), which it computes whole (none masked) and which it computes and masks (the
// tiles the diagonal crosses).
//
// Query row r sees key c when c ≤ r + (n_kv − n) (bottom-right alignment). Without a causal mask every
// tile is whole.
#pragma once

#include <cstdint>

#include "sim/core/problem.h"
#include "sim/core/tiling.h"

namespace iosim {

/// K/V tiles seen by a block of query rows: [0, full) whole, [full, end) partly masked, [end, T_c)
/// skipped.
struct KvRange {
  std::uint64_t full = 0;
  std::uint64_t end = 0;
};

/// Q tiles that see a block of key columns: [0, start) skipped, [start, full) partly masked,
/// [full, T_r) whole.
struct QRange {
  std::uint64_t start = 0;
  std::uint64_t full = 0;
};

class CausalMask {
 public:
  explicit CausalMask(const Problem& p)
      : causal_(p.causal), offset_(static_cast<std::int64_t>(p.n_kv) - static_cast<std::int64_t>(p.n)) {}

  [[nodiscard]] bool causal() const { return causal_; }

  /// The K/V tiles of `cols` that query rows [r0, r1) see.
  [[nodiscard]] KvRange kv_for_rows(std::uint64_t r0, std::uint64_t r1, const Tiling& cols) const;
  /// The Q tiles of `rows` that see key columns [c0, c1).
  [[nodiscard]] QRange q_for_cols(std::uint64_t c0, std::uint64_t c1, const Tiling& rows) const;

  /// Whether query row r sees key c (the definition the ranges follow; tests compare against it).
  [[nodiscard]] bool sees(std::uint64_t r, std::uint64_t c) const {
    return !causal_ || static_cast<std::int64_t>(c) <= static_cast<std::int64_t>(r) + offset_;
  }

 private:
  bool causal_;
  std::int64_t offset_;  ///< n_kv − n
};

}  // namespace iosim
