// Splitting a dimension into tiles, and walking the tiles either one at a time or in runs of equal ones.
//
// Exact counts need every tile, but not one call per tile: a run of equally sized tiles moves the same
// data each time. Walk::runs visits each run once (the full tiles, then the ragged last one), so a count
// costs O(runs) rather than O(tiles); Walk::each visits every tile, in order, for traces and caches.
#pragma once

#include <algorithm>
#include <cstdint>

#include "sim/core/units.h"

namespace iosim {

/// `extent` elements cut into blocks of `block`; the last block is shorter when block ∤ extent.
struct Tiling {
  std::uint64_t extent = 0;
  std::uint64_t block = 1;

  [[nodiscard]] constexpr std::uint64_t count() const { return ceil_div(extent, block); }
  [[nodiscard]] constexpr std::uint64_t begin(std::uint64_t i) const { return i * block; }
  [[nodiscard]] constexpr std::uint64_t size(std::uint64_t i) const {
    return std::min(block, extent - i * block);
  }
  [[nodiscard]] constexpr bool ragged() const { return extent % block != 0; }
};

/// `count` consecutive tiles starting at tile `first`, each `size` elements, the first at element `begin`.
struct Span {
  std::uint64_t first = 0;
  std::uint64_t count = 0;
  std::uint64_t size = 0;
  std::uint64_t begin = 0;
};

enum class Walk : std::uint8_t {
  runs,  ///< one visit per run of equal tiles, carrying its length (fast exact counts)
  each,  ///< one visit per tile, in order (traces, cache models)
};

/// Calls f(Span) over tiles [lo, hi) of `t`. In Walk::runs, equal tiles are merged into one span
/// (so at most two spans); in Walk::each, every span holds one tile.
template <class F>
void for_spans(const Tiling& t, Walk walk, std::uint64_t lo, std::uint64_t hi, F&& f) {
  hi = std::min(hi, t.count());
  if (lo >= hi) return;
  if (walk == Walk::each) {
    for (std::uint64_t i = lo; i < hi; ++i) f(Span{i, 1, t.size(i), t.begin(i)});
    return;
  }
  const std::uint64_t last = hi - 1;
  const bool last_short = t.size(last) != t.block;
  const std::uint64_t full_end = last_short ? last : hi;
  if (full_end > lo) f(Span{lo, full_end - lo, t.block, t.begin(lo)});
  if (last_short) f(Span{last, 1, t.size(last), t.begin(last)});
}

template <class F>
void for_spans(const Tiling& t, Walk walk, F&& f) {
  for_spans(t, walk, 0, t.count(), static_cast<F&&>(f));
}

}  // namespace iosim
