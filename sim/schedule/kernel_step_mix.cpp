#include "sim/schedule/kernel_step_mix.h"

namespace iosim {

const kernel_menu::StepMix* step_mix_variant(std::string_view kernel, std::uint64_t d, DType dtype, std::uint64_t br,
                                             std::uint64_t bc, std::uint32_t warps, std::uint32_t stages,
                                             std::string_view arch, std::string_view step) {
  for (const kernel_menu::StepMix& m : kernel_menu::kStepMix) {
    if (m.kernel == kernel && m.d == d && m.bf16 == (dtype == DType::bf16) && m.br == br && m.bc == bc &&
        m.warps == warps && m.stages == stages && m.arch == arch && m.step == step) {
      return &m;
    }
  }
  return nullptr;
}

KernelStepMix kernel_step_mix(std::string_view kernel, const LaunchShape& launch, const ScheduleContext& ctx) {
  if (ctx.kernel.source != KernelSource::iosim || launch.br == 0) return {};
  const Problem& p = ctx.problem;
  const auto row = [&](std::string_view step) {
    return step_mix_variant(kernel, p.d, p.dtype, launch.br, launch.bc, launch.threads / 32, launch.stages,
                            ctx.hardware.arch, step);
  };
  KernelStepMix m{row("unmasked"), nullptr};
  if (m.unmasked == nullptr) return {};
  if (p.window > 0) m.masked = row("window");
  if (m.masked == nullptr) m.masked = row("masked");
  return m;
}

}  // namespace iosim
