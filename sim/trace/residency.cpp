#include "sim/trace/residency.h"

#include <algorithm>

namespace iosim {

void Residency::apply(const TileRef& t, Direction dir, std::uint64_t step) {
  const bool load = dir == Direction::hbm_to_sram;
  if (load) std::erase_if(held_, [](const HeldTile& h) { return h.written_back; });
  const HeldTile now{t, !load, step};
  const auto same =
      std::find_if(held_.begin(), held_.end(), [&](const HeldTile& h) { return h.tile.tensor == t.tensor; });
  if (same == held_.end()) {
    held_.push_back(now);
  } else {
    *same = now;
  }
}

std::vector<HeldTile> Residency::tiles() const {
  std::vector<HeldTile> out = held_;
  std::sort(out.begin(), out.end(), [](const HeldTile& a, const HeldTile& b) { return a.tile.tensor < b.tile.tensor; });
  return out;
}

const HeldTile* Residency::find(Tensor t) const {
  const auto it = std::find_if(held_.begin(), held_.end(), [&](const HeldTile& h) { return h.tile.tensor == t; });
  return it == held_.end() ? nullptr : &*it;
}

}  // namespace iosim
