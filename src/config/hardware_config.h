// Hardware configs (configs/*.yaml) into HardwareSpec. The only place that knows their keys;
// docs/configs.md lists them.
#pragma once

#include <string>

#include "sim/core/hardware.h"

namespace iosim::config {

/// Reads and checks a hardware config file. Throws ConfigError with file, line and key on any problem.
[[nodiscard]] HardwareSpec load_hardware(const std::string& path);

}  // namespace iosim::config
