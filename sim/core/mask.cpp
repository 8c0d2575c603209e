#include "sim/core/mask.h"

#include <algorithm>

namespace iosim {

namespace {

using i64 = std::int64_t;
using u64 = std::uint64_t;

/// The tile of `t` holding position x (0 ≤ x < extent).
u64 tile_of(const Tiling& t, i64 x) { return static_cast<u64>(x) / t.block; }

/// Tile indices [lo, hi) of `t` that meet positions [a, b), given a < b.
struct TileSpan {
  u64 lo, hi;
};
TileSpan meeting(const Tiling& t, i64 a, i64 b) { return {tile_of(t, a), tile_of(t, b - 1) + 1}; }

/// Tile indices [lo, hi) of `t` lying wholly inside positions [a, b) (lo ≥ hi when none does).
TileSpan inside(const Tiling& t, i64 a, i64 b) {
  if (a >= b) return {0, 0};
  const auto block = static_cast<i64>(t.block);
  const u64 lo = static_cast<u64>((a + block - 1) / block);
  // A short last tile ends at the extent, so it lies inside when b reaches the extent.
  const u64 hi = b >= static_cast<i64>(t.extent) ? t.count() : static_cast<u64>(b / block);
  return {lo, hi};
}

}  // namespace

i64 Mask::first_key(i64 r) const { return window_ == 0 ? 0 : std::max<i64>(0, r + offset_ - window_ + 1); }
i64 Mask::end_key(i64 r) const { return causal_ ? std::clamp<i64>(r + offset_ + 1, 0, n_kv_) : n_kv_; }
i64 Mask::first_row(i64 c) const { return causal_ ? std::clamp<i64>(c - offset_, 0, n_) : 0; }
i64 Mask::end_row(i64 c) const { return window_ == 0 ? n_ : std::clamp<i64>(c - offset_ + window_, 0, n_); }

KvRange Mask::kv_for_rows(u64 r0, u64 r1, const Tiling& cols) const {
  if (!causal_) return {0, 0, cols.count(), cols.count()};
  // The rows seeing some key are those from −offset on (n > n_kv leaves the first rows without one).
  const i64 first = std::max<i64>(static_cast<i64>(r0), -offset_), last = static_cast<i64>(r1) - 1;
  if (first > last) return {};
  // Keys seen by some row: from the first seeing row's first to the last row's last (one run, as both
  // ends move right by one a row). Keys seen by every row: from the last row's first to the first row's
  // last (none when the first row sees nothing).
  const TileSpan any = meeting(cols, first_key(first), end_key(last));
  TileSpan all = inside(cols, first_key(last), end_key(static_cast<i64>(r0)));
  if (all.lo >= all.hi) all = {any.hi, any.hi};  // no whole tile: every tile met is partly masked
  return {any.lo, all.lo, all.hi, any.hi};
}

QRange Mask::q_for_cols(u64 c0, u64 c1, const Tiling& rows) const {
  const u64 tr = rows.count();
  if (!causal_) return {0, 0, tr, tr};
  // Keys c ≤ offset − W lie before even the first row's window (n_kv > n + W − 1): no row sees them.
  const i64 first = window_ == 0 ? static_cast<i64>(c0) : std::max<i64>(static_cast<i64>(c0), offset_ - window_ + 1);
  const i64 last = static_cast<i64>(c1) - 1;
  if (first > last || first_row(first) >= end_row(last)) return {tr, tr, tr, tr};
  // As for rows: the rows seeing some key run from the first seen key's first row to the last key's
  // last; those seeing every key from the last key's first row to the first key's last.
  const TileSpan any = meeting(rows, first_row(first), end_row(last));
  TileSpan all = inside(rows, first_row(last), end_row(static_cast<i64>(c0)));
  if (all.lo >= all.hi) all = {any.hi, any.hi};  // no whole tile: every tile met is partly masked
  return {any.lo, all.lo, all.hi, any.hi};
}

}  // namespace iosim
