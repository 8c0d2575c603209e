// What `iosim calibrate` prints and writes, apart from the GPU work: the tables of measured figures
// beside a config's, and the `measured:` section for the config. Plain functions of a gpu::Ceilings,
// so tests build one by hand.
#pragma once

#include <string>

#include "cuda/backend.h"
#include "sim/core/hardware.h"

namespace iosim::cli {

/// The rates (HBM, L2, SRAM, tensor, exp) beside the datasheet's of `hw` (null: no config given).
[[nodiscard]] std::string rate_table(const gpu::Ceilings& c, const HardwareSpec* hw);

/// Every pipeline figure measured beside the config's `pipeline:` default and their ratio.
[[nodiscard]] std::string pipeline_table(const gpu::Ceilings& c, const HardwareSpec* hw);

/// The `measured:` section: every rate and pipeline figure of `c` (those above 0), each with its source
/// comment, then `date:`. Starts with "measured:" and ends with a newline.
[[nodiscard]] std::string measured_section(const gpu::Ceilings& c, const std::string& date);

}  // namespace iosim::cli
