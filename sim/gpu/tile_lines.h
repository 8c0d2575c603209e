// The sampled lines of the tiles the fast replay's steps send, kept for the tiles that come again:
// every block of a head reads the same K/V tile at the same repeat, and SetSample::add() depends on
// the tile's bytes alone, so a tile seen lately is copied rather than derived again (at a coarse
// stride most tiles hold one or two sampled lines, and deriving them cost more than the copy).
// A direct-mapped table of recent tiles, their lines in one pool, both forgotten when the pool is full.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/gpu/address_map.h"
#include "sim/gpu/set_sample.h"

namespace iosim {

class TileLines {
 public:
  /// `sample` outlives this.
  explicit TileLines(const SetSample& sample) : sample_(sample), table_(kSlots) {}

  /// The sampled lines of `b` (renamed as SetSample::add() names them), valid until the next call;
  /// sets `sectors` to the sectors of all its lines.
  [[nodiscard]] std::span<const LineAccess> lines(const TileBytes& b, std::uint64_t& sectors) {
    Entry& e = table_[slot(b)];
    if (e.generation == generation_ && e.key == b) {
      sectors = e.sectors;
      return {pool_.data() + e.first, e.count};
    }
    return derive(b, e, sectors);
  }

  /// SetSample::add(): appends the sampled lines of `b` to `out`, returns the sectors of all its lines.
  std::uint64_t add(const TileBytes& b, std::vector<LineAccess>& out) {
    std::uint64_t sectors = 0;
    const std::span<const LineAccess> l = lines(b, sectors);
    out.insert(out.end(), l.begin(), l.end());
    return sectors;
  }

 private:
  static constexpr std::size_t kSlotBits = 12;
  static constexpr std::size_t kSlots = std::size_t{1} << kSlotBits;
  static constexpr std::size_t kMaxLines = 256;
  static constexpr std::size_t kPoolLines = std::size_t{1} << 16;

  struct Entry {
    TileBytes key;
    std::uint64_t sectors = 0;
    std::uint32_t first = 0, count = 0;
    std::uint64_t generation = 0;  ///< valid while it is the table's
  };

  /// lines() of a tile not in the table: derived, and kept in `e` when it is small.
  std::span<const LineAccess> derive(const TileBytes& b, Entry& e, std::uint64_t& sectors);

  /// Tiles differ mostly by where they start (a multiple of a line, or of a row).
  [[nodiscard]] static std::size_t slot(const TileBytes& b) {
    const std::uint64_t h = (b.start ^ (b.width << 40)) * 0x9E3779B97F4A7C15ull;
    return static_cast<std::size_t>(h >> (64 - kSlotBits));
  }

  const SetSample& sample_;
  std::vector<Entry> table_;
  std::vector<LineAccess> pool_;
  std::vector<LineAccess> scratch_;  ///< a tile not kept, or just derived
  std::uint64_t generation_ = 1;
};

}  // namespace iosim
