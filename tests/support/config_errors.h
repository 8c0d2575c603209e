// Helpers for tests of bad hardware configs: the loader's one-line error for a file, and the toy
// config (toy_config.h) with one piece of it changed.
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "src/config/hardware_config.h"
#include "src/config/yaml_map.h"
#include "support/toy_config.h"

namespace iosim::test {

/// The ConfigError message of loading `path`; empty when it loads.
inline std::string error_of(const std::string& path) {
  try {
    (void)config::load_hardware(path);
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "";
}

/// The toy config with its one occurrence of `from` replaced by `to` (a test error when `from` is absent).
inline std::string replaced(const std::string& from, const std::string& to) {
  std::string s = kToyConfig;
  const std::size_t at = s.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, from);
  return s.replace(at, from.size(), to);
}

}  // namespace iosim::test
