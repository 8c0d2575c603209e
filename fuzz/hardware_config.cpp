// Fuzz target: the hardware-config loader on arbitrary bytes. Bad input must be one ConfigError
// (InputError) of one line; anything else escaping, a sanitizer report or a hang is a finding. A config
// that loads must keep the limits the loader promises (hardware_config.h).
#include <cstdint>

#include "fuzz/support.h"
#include "src/config/hardware_config.h"
#include "src/config/yaml_map.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = iosim::fuzz::as_file(data, size, "-config.yaml");
  try {
    const iosim::HardwareSpec hw = iosim::config::load_hardware(path);
    if (hw.sm.count == 0 || hw.sm.count > iosim::config::kMaxSms) iosim::fuzz::finding("sm.count out of bounds");
    if (hw.l2.capacity.value > iosim::config::kMaxL2Bytes) iosim::fuzz::finding("l2.size_bytes out of bounds");
    if (hw.l2.capacity.value % (std::uint64_t{hw.l2.line_bytes} * hw.l2.ways * hw.l2.partitions) != 0) {
      iosim::fuzz::finding("the L2 is not a whole number of sets per partition");
    }
  } catch (const iosim::InputError& e) {
    if (std::string(e.what()).find('\n') != std::string::npos) {
      iosim::fuzz::finding("a message of two lines: " + iosim::config::printable(e.what()));
    }
  }
  return 0;
}
