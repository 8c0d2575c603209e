#include "sim/core/hardware.h"

namespace iosim {

double pipeline_figure(const HardwareSpec& hw, double PipelineSpec::*field) {
  const double measured = hw.measured.pipeline.*field;
  return measured > 0 ? measured : hw.pipeline.*field;
}

std::vector<std::string> unmeasured_pipeline_figures(const HardwareSpec& hw) {
  std::vector<std::string> out;
  for (const PipelineField& f : kPipelineFields) {
    if (!(hw.measured.pipeline.*(f.field) > 0)) out.emplace_back(f.key);
  }
  return out;
}

}  // namespace iosim
