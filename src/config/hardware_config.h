// Hardware configs (configs/*.yaml) into HardwareSpec. The only place that knows their keys;
// docs/configs.md lists them.
#pragma once

#include <cstdint>
#include <string>

#include <yaml-cpp/yaml.h>

#include "sim/core/hardware.h"

namespace iosim::config {

/// The largest hardware the model simulates; a config beyond them is refused before any work.
inline constexpr std::uint64_t kMaxSms = 4096;
inline constexpr std::uint64_t kMaxBlocksPerSm = 256;
inline constexpr std::uint64_t kMaxL2Bytes = std::uint64_t{1} << 30;
inline constexpr std::uint64_t kMaxL2Lines = std::uint64_t{1} << 24;

/// Reads and checks a hardware config file. Throws ConfigError with file, line and key on any problem.
[[nodiscard]] HardwareSpec load_hardware(const std::string& path);
/// The same checks on a config already parsed (the Python package's dict); `path` names it in the
/// errors ("<dict>").
[[nodiscard]] HardwareSpec load_hardware(const YAML::Node& config, const std::string& path);

}  // namespace iosim::config
