// `iosim calibrate [--config h200.yaml]`: the rate each resource of the time model reaches on this
// GPU (cuda/ceilings), beside the config's datasheet figure when one is given, and the `measured:`
// section to paste into the config.
#include <fmt/format.h>

#include <optional>
#include <vector>

#include "cuda/backend.h"
#include "src/cli/app.h"
#include "src/cli/commands.h"
#include "src/cli/gpu_spec.h"
#include "src/config/hardware_config.h"
#include "src/config/search_path.h"
#include "src/report/text_table.h"

namespace iosim::cli {

namespace {

struct Row {
  const char* resource;
  const char* key;
  const char* unit;
  double measured;
  double datasheet;  ///< 0 when no config was given
  const char* how;
};

std::vector<Row> rows(const gpu::Ceilings& c, const HardwareSpec* hw) {
  const auto ds = [&](auto f) { return hw != nullptr ? f(*hw) : 0.0; };
  const auto per_clock = [](const HardwareSpec& h, double per_sm_clock) {
    return per_sm_clock * h.sm.count * h.clock.sm_mhz * 1e6;
  };
  return {
      {"HBM", "hbm_gb_per_s", "GB/s", c.hbm_gb_per_s, ds([](const HardwareSpec& h) { return h.hbm.bandwidth_gb_per_s; }),
       "1 GiB copy, (read + written) / time"},
      {"L2", "l2_gb_per_s", "GB/s", c.l2_gb_per_s,
       ds([](const HardwareSpec& h) { return h.l2.bytes_per_clock * h.clock.sm_mhz * 1e6 / 1e9; }),
       "ld.global.cg of L2/4, repeated"},
      {"SRAM", "sram_gb_per_s", "GB/s", c.sram_gb_per_s,
       ds([&](const HardwareSpec& h) { return per_clock(h, h.sm.sram_bytes_per_clock) / 1e9; }),
       "ld.shared.v4, conflict-free"},
      {"tensor fp16", "tensor_fp16_tflops", "TFLOP/s", c.tensor_fp16_tflops,
       ds([](const HardwareSpec& h) { return h.peak.tensor_fp16_tflops; }), "mma.sync m16n8k16, fp32 accumulate"},
      {"tensor bf16", "tensor_bf16_tflops", "TFLOP/s", c.tensor_bf16_tflops,
       ds([](const HardwareSpec& h) { return h.peak.tensor_bf16_tflops; }), "mma.sync m16n8k16, fp32 accumulate"},
      {"exp", "exp2_g_per_s", "G/s", c.exp2_g_per_s,
       ds([&](const HardwareSpec& h) { return per_clock(h, h.sm.sfu_ops_per_clock) / 1e9; }), "ex2.approx.ftz.f32"},
  };
}

}  // namespace

int calibrate_command(const std::string& config, std::ostream& out, std::ostream& progress) {
  std::optional<HardwareSpec> hw;
  std::string config_file;
  if (!config.empty()) {
    config_file = config::find_file(config, config::config_dir(), "config");
    hw = config::load_hardware(config_file);
  }
  require_gpu("calibrate");
  progress << "iosim calibrate: timing one kernel per resource (a few seconds)\n";
  const gpu::Ceilings c = gpu::measure_ceilings();
  const std::string date = today();

  using A = report::TextTable::Align;
  report::TextTable t({"resource", "measured", "datasheet", "measured / datasheet", "kernel"},
                      {A::left, A::right, A::right, A::right, A::left});
  const std::vector<Row> all = rows(c, hw ? &*hw : nullptr);
  for (const Row& r : all) {
    t.add({r.resource, fmt::format("{:.4g} {}", r.measured, r.unit),
           r.datasheet > 0 ? fmt::format("{:.4g} {}", r.datasheet, r.unit) : std::string("-"),
           r.datasheet > 0 ? fmt::format("{:.0f}%", 100 * r.measured / r.datasheet) : std::string("-"), r.how});
  }
  out << fmt::format("iosim calibrate · {} · {} SMs, rated clock {:.0f} MHz · {}{}\n\n", c.device, c.sm_count,
                     c.max_sm_mhz, date, hw ? " · datasheet: " + config_file : std::string());
  out << t.render("  ");
  out << fmt::format("  for reference: a cuBLAS 8192³ fp16 GEMM (wgmma) reaches {:.4g} TFLOP/s{}\n\n", c.gemm_fp16_tflops,
                     hw ? fmt::format(" ({:.0f}% of the datasheet)", 100 * c.gemm_fp16_tflops / hw->peak.tensor_fp16_tflops)
                        : std::string());
  out << "# for the config (docs/configs.md); the time model uses these in place of the datasheet's rates\n";
  out << "measured:\n";
  for (const Row& r : all) {
    out << fmt::format("  {:<30} # [H] iosim calibrate, {}, {}\n", fmt::format("{}: {:.4g}", r.key, r.measured),
                       c.device, date);
  }
  return kExitOk;
}

}  // namespace iosim::cli
