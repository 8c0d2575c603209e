#include "sim/core/sram.h"

#include <stdexcept>

namespace iosim {

Bytes footprint(const std::vector<ResidentTile>& tiles, Storage where) {
  Bytes b;
  for (const ResidentTile& t : tiles) {
    if (t.where == where) b += t.bytes();
  }
  return b;
}

Bytes SramPhase::bytes(Storage where) const { return footprint(tiles, where); }

const SramPhase& SramPlan::peak_phase() const {
  if (phases.empty()) throw std::logic_error("SramPlan without phases");
  const SramPhase* best = &phases.front();
  for (const SramPhase& p : phases) {
    if (p.bytes(Storage::shared) > best->bytes(Storage::shared)) best = &p;
  }
  return *best;
}

Bytes SramPlan::peak() const { return peak_phase().bytes(Storage::shared); }

}  // namespace iosim
