// Fuzz target: the scenario loader on arbitrary bytes. Bad input must be one ConfigError (InputError)
// of one line; anything else escaping, a sanitizer report or a hang is a finding.
#include <cstdint>

#include "fuzz/support.h"
#include "src/config/scenario.h"
#include "src/config/yaml_map.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = iosim::fuzz::as_file(data, size, "-scenario.yaml");
  try {
    const iosim::config::Scenario s = iosim::config::load_scenario(path);
    for (std::uint64_t v : s.br) {
      if (v == 0) iosim::fuzz::finding("tiles.br holds 0");
    }
    if (s.n && *s.n == 0) iosim::fuzz::finding("problem.n is 0");
  } catch (const iosim::InputError& e) {
    if (std::string(e.what()).find('\n') != std::string::npos) {
      iosim::fuzz::finding("a message of two lines: " + iosim::config::printable(e.what()));
    }
  }
  return 0;
}
