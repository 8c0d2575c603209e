#include "src/cli/calibrate_report.h"

#include <fmt/format.h>

#include <iterator>
#include <vector>

#include "src/report/text_table.h"

namespace iosim::cli {

namespace {

using A = report::TextTable::Align;

struct RateRow {
  const char* resource;
  const char* key;
  const char* unit;
  double measured;
  double datasheet;  ///< 0 when no config was given
  const char* how;
};

std::vector<RateRow> rate_rows(const gpu::Ceilings& c, const HardwareSpec* hw) {
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
      {"L2 reductions", "l2_red_gb_per_s", "GB/s", c.l2_red_gb_per_s, 0, "fp32 atomicAdd (RED) into L2/16, repeated"},
      {"SRAM", "sram_gb_per_s", "GB/s", c.sram_gb_per_s,
       ds([&](const HardwareSpec& h) { return per_clock(h, h.sm.sram_bytes_per_clock) / 1e9; }),
       "ld.shared.v4, conflict-free"},
      {"tensor fp16", "tensor_fp16_tflops", "TFLOP/s", c.tensor_fp16_tflops,
       ds([](const HardwareSpec& h) { return h.peak.tensor_fp16_tflops; }), "mma.sync m16n8k16, fp32 accumulate"},
      {"tensor bf16", "tensor_bf16_tflops", "TFLOP/s", c.tensor_bf16_tflops,
       ds([](const HardwareSpec& h) { return h.peak.tensor_bf16_tflops; }), "mma.sync m16n8k16, fp32 accumulate"},
      {"GEMM fp16", "gemm_fp16_tflops", "TFLOP/s", c.gemm_fp16_tflops,
       ds([](const HardwareSpec& h) { return h.peak.tensor_fp16_tflops; }), "cuBLAS 8192³ fp16 GEMM (wgmma on Hopper)"},
      {"exp", "exp2_g_per_s", "G/s", c.exp2_g_per_s,
       ds([&](const HardwareSpec& h) { return per_clock(h, h.sm.sfu_ops_per_clock) / 1e9; }), "ex2.approx.ftz.f32"},
  };
}

/// Unit and microbenchmark of each pipeline figure, in the order of kPipelineFields, and what its
/// measurement is set beside: the config's `pipeline:` default, or for `datasheet` rows where the config
/// has none, the datasheet's figure (datasheet_figure).
struct PipelineRow {
  const char* unit;
  const char* how;
  bool datasheet = false;
};
constexpr PipelineRow kPipelineRows[] = {
    {"MHz", "clock64() cycles / event time, mma.sync on every SM"},
    {"cycles", "dependent mma.sync m16n8k16 chain, one warp"},
    {"cycles", "ldmatrix.x4 whose result is its next address"},
    {"cycles", "ld.shared.u32 pointer chase"},
    {"cycles", "cp.async.cg 16 B + wait_group 0, L2-resident"},
    {"cycles", "dependent ex2.approx.ftz.f32 chain"},
    {"cycles", "dependent fma.rn.f32 chain"},
    {"cycles", "dependent shfl.sync.bfly chain"},
    {"cycles", "8 shfl chains x 4 warps per sub-partition"},
    {"cycles", "bar.sync of 4 warps"},
    {"cycles", "ld.global.cg chase over L2/16"},
    {"cycles", "ld.global.cg chase over 4 x L2, L2 swept"},
    {"us", "back-to-back empty kernels, one stream"},
    {"cycles", "dependent wgmma m64n128k16 SS chain + wait_group 0, one warpgroup"},
    {"cycles", "wgmma m64n128k16 SS back to back, per SM: the faster of 1 and 2 warpgroups on every SM", true},
    {"cycles", "no microbenchmark: fitted to flash3's paged forward (scripts/fit-tma-copy.py)"},
};
static_assert(std::size(kPipelineRows) == std::size(kPipelineFields));

/// The datasheet's figure for a `datasheet` row: wgmma_interval at the dense fp16 peak, the cycles of
/// one SM per m64n128k16 (2·64·128·16 FLOPs) at the config's clock (clocks.sm_mhz).
double datasheet_figure(const PipelineField& f, const HardwareSpec& hw) {
  const double per_sm_cycle = hw.peak.tensor_fp16_tflops * 1e12 / (hw.sm.count * hw.clock.sm_mhz * 1e6);
  if (f.field == &PipelineSpec::wgmma_interval && per_sm_cycle > 0) return 2.0 * 64 * 128 * 16 / per_sm_cycle;
  return 0;
}

std::string ratio(double measured, double reference) {
  return reference > 0 && measured > 0 ? fmt::format("{:.2f}", measured / reference) : std::string("-");
}

std::string value(double v, const char* unit) { return v > 0 ? fmt::format("{:.4g} {}", v, unit) : std::string("-"); }

}  // namespace

std::string rate_table(const gpu::Ceilings& c, const HardwareSpec* hw) {
  report::TextTable t({"resource", "measured", "datasheet", "measured / datasheet", "kernel"},
                      {A::left, A::right, A::right, A::right, A::left});
  for (const RateRow& r : rate_rows(c, hw)) {
    t.add({r.resource, value(r.measured, r.unit), value(r.datasheet, r.unit),
           r.datasheet > 0 && r.measured > 0 ? fmt::format("{:.0f}%", 100 * r.measured / r.datasheet) : std::string("-"),
           r.how});
  }
  return t.render("  ");
}

std::string pipeline_table(const gpu::Ceilings& c, const HardwareSpec* hw) {
  report::TextTable t({"figure", "measured", "config default", "measured / default", "microbenchmark"},
                      {A::left, A::right, A::right, A::right, A::left});
  bool datasheet_used = false;
  for (std::size_t i = 0; i < std::size(kPipelineFields); ++i) {
    const PipelineField& f = kPipelineFields[i];
    const PipelineRow& row = kPipelineRows[i];
    const double measured = c.pipeline.*(f.field);
    double fallback = hw != nullptr ? hw->pipeline.*(f.field) : 0.0;
    std::string shown = value(fallback, row.unit);
    if (hw != nullptr && row.datasheet && !(fallback > 0)) {
      fallback = datasheet_figure(f, *hw);
      shown = fallback > 0 ? value(fallback, row.unit) + " (datasheet)" : shown;
      datasheet_used = datasheet_used || fallback > 0;
    }
    const bool not_measured = f.optional && f.calibrated && !(measured > 0) && !c.wgmma_not_measured.empty();
    t.add({f.key, not_measured ? std::string("not measured") : value(measured, row.unit), shown,
           ratio(measured, fallback), row.how});
  }
  std::string out = t.render("  ");
  if (datasheet_used) {
    out += "  (datasheet): the dense fp16 tensor peak (peak.tensor_fp16_tflops) at clocks.sm_mhz, in cycles of one SM\n";
  }
  if (!c.wgmma_not_measured.empty()) out += "  wgmma figures not measured: " + c.wgmma_not_measured + "\n";
  return out;
}

std::string measured_section(const gpu::Ceilings& c, const std::string& date) {
  std::string out = "measured:\n";
  const auto line = [&](const char* key, double v) {
    if (!(v > 0)) return;
    out += fmt::format("  {:<30} # [H] iosim calibrate, {}, {}\n", fmt::format("{}: {:.4g}", key, v), c.device, date);
  };
  for (const RateRow& r : rate_rows(c, nullptr)) line(r.key, r.measured);
  std::string unused;
  for (const PipelineField& f : kPipelineFields) {
    // The wgmma figures (optional) are measured, but no family is priced with them yet: with them the
    // staggered flash3 family comes out 31% under on the H200 (docs/validation.md, "wgmma"), so they are
    // written as a comment, which a reader can turn into keys.
    if (!f.optional) {
      line(f.key, c.pipeline.*(f.field));
    } else if (c.pipeline.*(f.field) > 0) {
      unused += fmt::format(" {}: {:.4g}", f.key, c.pipeline.*(f.field));
    }
  }
  if (!unused.empty()) {
    out += fmt::format("  # measured, not used (docs/validation.md, \"wgmma\"):{} · iosim calibrate, {}, {}\n", unused,
                       c.device, date);
  }
  out += "  date: " + date + "\n";
  return out;
}

}  // namespace iosim::cli
