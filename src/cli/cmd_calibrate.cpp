// `iosim calibrate [--config h200.yaml] [--write FILE]`: the rate each resource of the time model
// reaches on this GPU and the latencies of its SM model (cuda/ceilings), beside the config's figures
// when one is given, and the `measured:` section for the config: printed, or written into FILE in place
// (src/config/measured_section.h).
#include <fmt/format.h>

#include <optional>

#include "cuda/backend.h"
#include "src/cli/app.h"
#include "src/cli/calibrate_report.h"
#include "src/cli/commands.h"
#include "src/cli/gpu_spec.h"
#include "src/config/hardware_config.h"
#include "src/config/measured_section.h"
#include "src/config/search_path.h"

namespace iosim::cli {

int calibrate_command(const std::string& config, const std::string& write_file, std::ostream& out,
                      std::ostream& progress) {
  // Every file is checked before the GPU runs: a bad one costs nothing.
  std::optional<HardwareSpec> hw;
  std::string config_file;
  if (!config.empty()) {
    config_file = config::find_file(config, config::config_dir(), "config");
  } else if (!write_file.empty()) {
    config_file = write_file;
  }
  if (!config_file.empty()) hw = config::load_hardware(config_file);
  if (!write_file.empty() && write_file != config_file) (void)config::load_hardware(write_file);
  require_gpu("calibrate");
  progress << "iosim calibrate: timing one kernel per resource and one per latency (a few seconds)\n";
  const gpu::Ceilings c = gpu::measure_ceilings();
  const std::string date = today();

  out << fmt::format("iosim calibrate · {} · {} SMs, rated clock {:.0f} MHz · {}{}\n\n", c.device, c.sm_count,
                     c.max_sm_mhz, date, hw ? " · config: " + config_file : std::string());
  out << rate_table(c, hw ? &*hw : nullptr);
  out << '\n';
  out << "SM pipeline (cycles at the measured clock; the config's default is its pipeline: section):\n";
  out << pipeline_table(c, hw ? &*hw : nullptr) << '\n';
  const std::string section = measured_section(c, date);
  out << "# for the config (docs/configs.md); the time model uses these in place of the datasheet's rates\n"
         "# and of the pipeline: defaults\n";
  out << section;
  if (!write_file.empty()) {
    // The clock under wgmma is Nsight Compute's (docs/configs.md), not calibrate's: kept as it was.
    config::write_measured_section(write_file, section, {"wgmma_clock_mhz"});
    progress << "iosim calibrate: wrote the measured: section of " << write_file << '\n';
  }
  return kExitOk;
}

}  // namespace iosim::cli
