// What `iosim bounds` prints: each sweep, its fitted slope, and whether it sits within tolerance.
#pragma once

#include <string>
#include <vector>

#include "sim/slopes/sweep.h"
#include "sim/core/hardware.h"

namespace iosim::report {

struct BoundsReport {
  std::string config_file;
  HardwareSpec hardware;
  Problem base;
  Pass pass = Pass::fwd;
  std::vector<SlopeCheck> checks;
  Crossover crossover;
};

[[nodiscard]] std::string render_bounds_table(const BoundsReport& r);
[[nodiscard]] std::string render_bounds_json(const BoundsReport& r);
[[nodiscard]] std::string render_bounds_csv(const BoundsReport& r);

}  // namespace iosim::report
