// What `iosim tiles` prints: the best tile choices with their traffic and time, and why the others
// are out.
#pragma once

#include <string>
#include <vector>

#include "sim/tiles/search.h"

namespace iosim::report {

struct TilesReport {
  std::string config_file;
  HardwareSpec hardware;
  Problem problem;
  TileSearchSpec spec;
  std::vector<TileCandidate> candidates;  ///< as search_tiles returns them
  std::size_t top = 10;
  std::string pass;  ///< fwd, bwd, or fwdbwd (each candidate the sum of both passes' searches)
};

[[nodiscard]] std::string render_tiles_table(const TilesReport& r);
[[nodiscard]] std::string render_tiles_json(const TilesReport& r);
/// Every candidate, feasible or not.
[[nodiscard]] std::string render_tiles_csv(const TilesReport& r);

}  // namespace iosim::report
