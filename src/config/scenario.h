// Scenario files (scenarios/*.yaml): a named problem, optionally with its hardware config, the
// schedules to run and tiles. Every field is optional; command-line flags override what is here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/dtype.h"

namespace iosim::config {

struct Scenario {
  std::string file;
  std::string description;
  std::optional<std::string> config;
  std::optional<std::uint64_t> batch, heads, kv_heads, n, n_kv, d, window, page_size;
  std::optional<std::string> page_order;  ///< contiguous, random or a seed (with page_size)
  std::optional<DType> dtype;
  std::optional<bool> causal;
  std::optional<std::string> pass;  ///< fwd, bwd or fwdbwd
  std::optional<std::vector<std::string>> schedules;
  std::vector<std::uint64_t> br, bc;  ///< several values make a sweep
  std::optional<std::uint64_t> splits;
};

/// Reads and checks a scenario file. Throws ConfigError with file, line and key on any problem.
[[nodiscard]] Scenario load_scenario(const std::string& path);

}  // namespace iosim::config
