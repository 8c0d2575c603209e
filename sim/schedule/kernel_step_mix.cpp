#include "sim/schedule/kernel_step_mix.h"

namespace iosim {

const kernel_menu::StepMix* step_mix_variant(std::string_view kernel, std::uint64_t d, DType dtype, std::uint64_t br,
                                             std::uint64_t bc, std::uint32_t warps, std::uint32_t stages,
                                             std::string_view arch) {
  for (const kernel_menu::StepMix& m : kernel_menu::kStepMix) {
    if (m.kernel == kernel && m.d == d && m.bf16 == (dtype == DType::bf16) && m.br == br && m.bc == bc &&
        m.warps == warps && m.stages == stages && m.arch == arch) {
      return &m;
    }
  }
  return nullptr;
}

const kernel_menu::StepMix* kernel_step_mix(std::string_view kernel, const LaunchShape& launch,
                                            const ScheduleContext& ctx) {
  if (ctx.kernel.source != KernelSource::iosim || launch.br == 0) return nullptr;
  return step_mix_variant(kernel, ctx.problem.d, ctx.problem.dtype, launch.br, launch.bc, launch.threads / 32,
                          launch.stages, ctx.hardware.arch);
}

}  // namespace iosim
