#include "sim/schedule/kernel_menu.h"

#include <charconv>

namespace iosim {

const kernel_menu::Default* menu_default(std::string_view schedule, Pass pass, std::uint64_t d) {
  for (const kernel_menu::Default& k : kernel_menu::kDefaults) {
    if (k.schedule == schedule && k.forward == (pass == Pass::fwd) && k.d == d) return &k;
  }
  return nullptr;
}

bool menu_arch_runs_on(std::string_view menu_arch, std::string_view arch) {
  // A config's arch is sm_<cc>, with an `a` where it names the architecture-specific features (sm_90a).
  if (!arch.starts_with("sm_")) return false;
  unsigned cc = 0;
  const char* last = arch.data() + arch.size();
  const auto [end, err] = std::from_chars(arch.data() + 3, last, cc);
  if (err != std::errc{} || !(end == last || (end + 1 == last && *end == 'a'))) return false;
  if (menu_arch == "sm90a") return cc == 90;
  return menu_arch == "sm80" && cc >= 80;
}

const kernel_menu::Kernel* menu_kernel(std::string_view schedule, Pass pass, std::uint64_t d, DType dtype,
                                       TileShape tile, std::uint32_t warps, std::uint32_t stages,
                                       std::string_view arch) {
  for (const kernel_menu::Kernel& k : kernel_menu::kKernels) {
    if (k.schedule == schedule && k.forward == (pass == Pass::fwd) && k.d == d && k.bf16 == (dtype == DType::bf16) &&
        k.br == tile.br && k.bc == tile.bc && k.warps == warps && k.stages == stages &&
        menu_arch_runs_on(k.arch, arch)) {
      return &k;
    }
  }
  return nullptr;
}

DefaultTile menu_tile_or(std::string_view schedule, Pass pass, const ScheduleContext& ctx, DefaultTile rule) {
  if (ctx.kernel.source != KernelSource::iosim) return rule;
  const kernel_menu::Default* k = menu_default(schedule, pass, ctx.problem.d);
  return k != nullptr ? DefaultTile{{k->br, k->bc}, tile_source::kMenu} : rule;
}

DefaultKernel menu_kernel_or(std::string_view schedule, Pass pass, const ScheduleContext& ctx, DefaultKernel rule) {
  DefaultKernel out = rule;
  out.tile = menu_tile_or(schedule, pass, ctx, rule.tile);
  const bool user_tile = ctx.tiles.br.has_value() || ctx.tiles.bc.has_value();
  if (out.tile.source == tile_source::kMenu && !user_tile) {
    const kernel_menu::Default* k = menu_default(schedule, pass, ctx.problem.d);
    out.warps = k->warps;
    out.stages = k->stages;
  }
  if (ctx.kernel.warps != 0) out.warps = ctx.kernel.warps;
  if (ctx.kernel.stages != 0) out.stages = ctx.kernel.stages;
  return out;
}

}  // namespace iosim
