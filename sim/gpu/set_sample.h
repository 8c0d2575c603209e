// Set sampling for the fast GPU model: only every `stride`-th set of the L2 is simulated. A line is in
// the sample when its set (the hash of L2Cache::hashed_set) is a multiple of the stride; it is then
// renamed to a "virtual" line of a cache with stride times fewer sets, indexed modulo, so that it lands
// in set (its set ÷ stride) with its own tag: 2 × its tag + its home partition's number
// (PartitionedL2::home of the real address), which home() reads back without undoing the renaming. The sampled sets see exactly the requests they would
// see in the whole cache, in the same order; the misses, write-backs and fabric reads they cause,
// times the stride, estimate the whole cache's (every set gets one line of every span of `sets`
// consecutive lines, so the sample is a systematic one: 1 line in `stride` of every range).
//
// The sectors the SMs ask for are counted exactly, for every line, sampled or not.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/gpu/address_map.h"
#include "sim/memory/divider.h"
#include "sim/memory/partitioned_l2.h"

namespace iosim {

class SetSample {
 public:
  /// A sample of every `stride`-th set of `sets` (per partition); `stride` is a power of two that
  /// divides `sets`. With stride 1 every line is in the sample, under its own address.
  SetSample(std::uint64_t sets, std::uint32_t stride, std::uint32_t line_bytes, std::uint32_t sector_bytes);

  /// Appends to `out` the sampled lines of `b` (renamed when stride > 1) with their sector masks;
  /// returns the sectors `b` touches in all lines, as AddressMap::lines() would count them.
  std::uint64_t add(const TileBytes& b, std::vector<LineAccess>& out) const;

  /// The address of virtual line `v` (the inverse of the renaming).
  [[nodiscard]] std::uint64_t original(std::uint64_t v) const;
  /// The home partition of the address virtual line `v` was renamed from.
  [[nodiscard]] std::uint32_t home(std::uint64_t v) const {
    return stride_ == 1 ? PartitionedL2::home(v) : static_cast<std::uint32_t>((v / per_tag_) & 1);
  }

  [[nodiscard]] std::uint32_t stride() const { return stride_; }
  /// Sets of the whole cache (per partition).
  [[nodiscard]] std::uint64_t sets() const { return sets_; }
  /// Virtual lines per tag and home (sets ÷ stride): home(v) is bit 0 of v ÷ lines_per_tag().
  [[nodiscard]] std::uint64_t lines_per_tag() const { return per_tag_; }
  /// The largest power of two ≤ `limit` that divides `sets`.
  [[nodiscard]] static std::uint32_t largest_stride(std::uint64_t sets, std::uint32_t limit);

 private:
  /// One contiguous range: sampled lines enumerated tag by tag, sectors by arithmetic.
  std::uint64_t add_contiguous(std::uint64_t begin, std::uint64_t bytes, std::vector<LineAccess>& out) const;
  /// Rows apart: line by line, a line's sectors merged across the rows that share it.
  std::uint64_t add_rows(const TileBytes& b, std::vector<LineAccess>& out) const;
  /// add_rows() of rows that each lie within one line, whole lines apart: one line per row, all
  /// with the same sectors, the sampled ones found by arithmetic on the sets.
  std::uint64_t add_row_lines(const TileBytes& b, std::vector<LineAccess>& out) const;
  /// add_row_lines() of rows fewer than `sets` lines apart, a multiple of the stride (naive's rows):
  /// a span's rows are all sampled or none, by its rotation alone; the rest are passed over.
  std::uint64_t add_row_lines_aligned(const TileBytes& b, std::vector<LineAccess>& out) const;
  /// add_rows() of rows of `w` ≥ 2 lines each that share no line, whole lines apart: the same lines
  /// in the same order (row by row, line by line), the sampled ones found by arithmetic on the sets.
  std::uint64_t add_row_spans(const TileBytes& b, std::uint64_t w, std::vector<LineAccess>& out) const;
  [[nodiscard]] std::uint32_t mask(std::uint64_t line, std::uint64_t begin, std::uint64_t end) const;
  /// The virtual line of `line`, of tag `tag`, in set `set` of the whole cache.
  [[nodiscard]] std::uint64_t virtual_line(std::uint64_t line, std::uint64_t tag, std::uint64_t set) const;
  /// The virtual line of `line` when it is in the sample; ~0 when it is not.
  [[nodiscard]] std::uint64_t rename(std::uint64_t line) const;

  /// The span (tag) of `line` and its offset in it: line ÷ sets and line mod sets.
  [[nodiscard]] std::uint64_t span_of(std::uint64_t line, std::uint64_t& offset) const { return by_sets_.div(line, offset); }

  std::uint64_t sets_;
  Divider by_sets_;  ///< line ÷ sets_ without a hardware division (every tile's lines)
  std::uint32_t stride_;
  std::uint32_t stride_shift_;  ///< log2 of the stride: sets ÷ stride and mod stride by shift and mask
  std::uint64_t per_tag_;       ///< sets ÷ stride
  std::uint32_t line_shift_;
  std::uint32_t sector_shift_;
  std::uint32_t full_;  ///< the mask of every sector of a line
};

}  // namespace iosim
