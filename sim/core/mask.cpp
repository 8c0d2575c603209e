#include "sim/core/mask.h"

#include <algorithm>

namespace iosim {

namespace {

using i64 = std::int64_t;

/// ⌊a / b⌋ for b > 0, rounding towards −∞.
i64 floor_div(i64 a, i64 b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

std::uint64_t clamp_to(i64 v, std::uint64_t hi) {
  return v <= 0 ? 0 : std::min(static_cast<std::uint64_t>(v), hi);
}

}  // namespace

KvRange CausalMask::kv_for_rows(std::uint64_t r0, std::uint64_t r1, const Tiling& cols) const {
  const std::uint64_t tc = cols.count();
  if (!causal_) return {tc, tc};
  const i64 b = static_cast<i64>(cols.block);
  // Row r sees columns c ≤ r + offset. The block's last row sees the most, its first row the fewest.
  const i64 most = static_cast<i64>(r1) - 1 + offset_;
  const i64 fewest = static_cast<i64>(r0) + offset_;
  const std::uint64_t end = clamp_to(floor_div(most, b) + 1, tc);
  std::uint64_t full = std::min(clamp_to(floor_div(fewest + 1, b), tc), end);
  // The formula counts tiles of `block` columns; a short last tile may be whole one tile earlier.
  if (full < end && static_cast<i64>(cols.begin(full) + cols.size(full)) - 1 <= fewest) ++full;
  return {full, end};
}

QRange CausalMask::q_for_cols(std::uint64_t c0, std::uint64_t c1, const Tiling& rows) const {
  const std::uint64_t tr = rows.count();
  if (!causal_) return {0, 0};
  const i64 b = static_cast<i64>(rows.block);
  // Column c is seen from row c − offset on; the block of columns is seen whole from row c1 − 1 − offset.
  const i64 first_row = static_cast<i64>(c0) - offset_;
  if (first_row >= static_cast<i64>(rows.extent)) return {tr, tr};
  const std::uint64_t start = clamp_to(floor_div(first_row, b), tr);
  const i64 whole_from = static_cast<i64>(c1) - 1 - offset_;
  const std::uint64_t full = std::max(start, clamp_to(floor_div(whole_from + b - 1, b), tr));
  return {start, full};
}

}  // namespace iosim
