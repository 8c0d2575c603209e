#include "sim/core/peer_correction.h"

namespace iosim {

namespace {

/// What a measured figure is a share of.
enum class Base : std::uint8_t { hbm, l2, sram, tensor_fp16, tensor_bf16, sfu, pipeline };

/// A correctable figure: where its measurement lives in MeasuredSpec (a member, or one of `pipeline`'s)
/// and what it is a share of.
struct Figure {
  const char* key;
  Base base;
  double MeasuredSpec::*top = nullptr;
  double PipelineSpec::*pipe = nullptr;
};

const std::vector<Figure>& figures() {
  static const std::vector<Figure> table = [] {
    std::vector<Figure> f = {
        {"hbm_gb_per_s", Base::hbm, &MeasuredSpec::hbm_gb_per_s},
        {"l2_gb_per_s", Base::l2, &MeasuredSpec::l2_gb_per_s},
        {"l2_red_gb_per_s", Base::l2, &MeasuredSpec::l2_red_gb_per_s},
        {"sram_gb_per_s", Base::sram, &MeasuredSpec::sram_gb_per_s},
        {"tensor_fp16_tflops", Base::tensor_fp16, &MeasuredSpec::tensor_fp16_tflops},
        {"tensor_bf16_tflops", Base::tensor_bf16, &MeasuredSpec::tensor_bf16_tflops},
        {"gemm_fp16_tflops", Base::tensor_fp16, &MeasuredSpec::gemm_fp16_tflops},
        {"exp2_g_per_s", Base::sfu, &MeasuredSpec::exp2_g_per_s},
    };
    for (const PipelineField& p : kPipelineFields) f.push_back({p.key, Base::pipeline, nullptr, p.field});
    return f;
  }();
  return table;
}

double& slot(MeasuredSpec& m, const Figure& f) { return f.top != nullptr ? m.*(f.top) : m.pipeline.*(f.pipe); }
double value(const MeasuredSpec& m, const Figure& f) { return f.top != nullptr ? m.*(f.top) : m.pipeline.*(f.pipe); }

/// The datasheet figure: 10^9 bytes or results a second, TFLOP/s, or the `pipeline:` default.
double base(const HardwareSpec& hw, const Figure& f) {
  const double ghz = hw.clock.sm_mhz * 1e-3;
  switch (f.base) {
    case Base::hbm: return hw.hbm.bandwidth_gb_per_s;
    case Base::l2: return hw.l2.bytes_per_clock * ghz;
    case Base::sram: return static_cast<double>(hw.sm.sram_bytes_per_clock) * hw.sm.count * ghz;
    case Base::tensor_fp16: return hw.peak.tensor_fp16_tflops;
    case Base::tensor_bf16: return hw.peak.tensor_bf16_tflops;
    case Base::sfu: return static_cast<double>(hw.sm.sfu_ops_per_clock) * hw.sm.count * ghz;
    case Base::pipeline: return hw.pipeline.*(f.pipe);
  }
  return 0;
}

}  // namespace

std::vector<std::string> correctable_figures() {
  std::vector<std::string> out;
  for (const Figure& f : figures()) out.emplace_back(f.key);
  return out;
}

double datasheet_figure(const HardwareSpec& hw, const std::string& key) {
  for (const Figure& f : figures()) {
    if (key == f.key) return base(hw, f);
  }
  return 0;
}

std::vector<CorrectedFigure> correct_from_peers(HardwareSpec& hw, const std::vector<HardwareSpec>& peers) {
  std::vector<CorrectedFigure> out;
  for (const Figure& f : figures()) {
    const double own = base(hw, f);
    if (value(hw.measured, f) > 0 || !(own > 0)) continue;
    CorrectedFigure c{f.key, own, 0, 0, {}};
    double sum = 0;
    for (const HardwareSpec& peer : peers) {
      const double measured = value(peer.measured, f);
      const double peer_base = base(peer, f);
      if (peer.name == hw.name || !(measured > 0) || !(peer_base > 0)) continue;
      sum += measured / peer_base;
      c.peers.push_back(peer.name);
    }
    if (c.peers.empty()) continue;
    c.share = sum / static_cast<double>(c.peers.size());
    c.value = own * c.share;
    slot(hw.measured, f) = c.value;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace iosim
