#include "sim/gpu/tile_lines.h"

namespace iosim {

std::span<const LineAccess> TileLines::derive(const TileBytes& b, Entry& e, std::uint64_t& sectors) {
  scratch_.clear();
  sectors = sample_.add(b, scratch_);
  const std::size_t count = scratch_.size();
  if (count > kMaxLines) return scratch_;  // fine strides' wide tiles: little to gain, much to keep
  if (pool_.size() + count > kPoolLines) {
    pool_.clear();
    ++generation_;
  }
  e = {b, sectors, static_cast<std::uint32_t>(pool_.size()), static_cast<std::uint32_t>(count), generation_};
  pool_.insert(pool_.end(), scratch_.begin(), scratch_.end());
  return scratch_;
}

}  // namespace iosim
