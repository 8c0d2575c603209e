#include "sim/core/hardware.h"

#include <cmath>

namespace iosim {

double pipeline_figure(const HardwareSpec& hw, double PipelineSpec::*field) {
  const double measured = hw.measured.pipeline.*field;
  return measured > 0 ? measured : hw.pipeline.*field;
}

double rate_at(const KernelRate& r, std::uint64_t row_length) {
  if (r.row_lengths.empty() || row_length <= r.row_lengths.front()) return r.gb_per_s.front();
  if (row_length >= r.row_lengths.back()) return r.gb_per_s.back();
  std::size_t i = 1;
  while (r.row_lengths[i] < row_length) ++i;
  const double lo = std::log2(static_cast<double>(r.row_lengths[i - 1]));
  const double hi = std::log2(static_cast<double>(r.row_lengths[i]));
  const double w = (std::log2(static_cast<double>(row_length)) - lo) / (hi - lo);
  return r.gb_per_s[i - 1] + w * (r.gb_per_s[i] - r.gb_per_s[i - 1]);
}

const KernelRate* kernel_rate(const HardwareSpec& hw, std::string_view family) {
  for (const KernelRate& r : hw.kernel_rates) {
    if (r.family == family) return &r;
  }
  return nullptr;
}

std::vector<std::string> unmeasured_pipeline_figures(const HardwareSpec& hw) {
  std::vector<std::string> out;
  for (const PipelineField& f : kPipelineFields) {
    if (!(hw.measured.pipeline.*(f.field) > 0)) out.emplace_back(f.key);
  }
  return out;
}

}  // namespace iosim
