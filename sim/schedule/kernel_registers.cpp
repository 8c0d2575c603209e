#include "sim/schedule/kernel_registers.h"

namespace iosim {

const kernel_menu::Compiled* compiled_variant(std::string_view kernel, std::uint64_t d, DType dtype,
                                              std::uint64_t br, std::uint64_t bc, std::uint32_t warps,
                                              std::uint32_t stages, std::string_view arch) {
  for (const kernel_menu::Compiled& c : kernel_menu::kCompiled) {
    if (c.kernel == kernel && c.d == d && c.bf16 == (dtype == DType::bf16) && c.br == br && c.bc == bc &&
        c.warps == warps && c.stages == stages && c.arch == arch) {
      return &c;
    }
  }
  return nullptr;
}

KernelRegisters kernel_registers(std::string_view kernel, const LaunchShape& launch, const KernelFamily& family,
                                 const ScheduleContext& ctx) {
  if (ctx.kernel.source == KernelSource::iosim && launch.br > 0) {
    const kernel_menu::Compiled* c = compiled_variant(kernel, ctx.problem.d, ctx.problem.dtype, launch.br, launch.bc,
                                                      launch.threads / 32, launch.stages, ctx.hardware.arch);
    if (c != nullptr) return {c->registers, c->spill_stores_bytes, RegisterSource::compiled};
  }
  if (launch.fragment_registers > 0) {
    return {family_registers(family, launch.fragment_registers), 0, RegisterSource::fitted};
  }
  return {};
}

}  // namespace iosim
