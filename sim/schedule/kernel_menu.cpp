#include "sim/schedule/kernel_menu.h"

namespace iosim {

const kernel_menu::Default* menu_default(std::string_view schedule, Pass pass, std::uint64_t d) {
  for (const kernel_menu::Default& k : kernel_menu::kDefaults) {
    if (k.schedule == schedule && k.forward == (pass == Pass::fwd) && k.d == d) return &k;
  }
  return nullptr;
}

DefaultTile menu_tile_or(std::string_view schedule, Pass pass, const ScheduleContext& ctx, DefaultTile rule) {
  if (ctx.kernel.source != KernelSource::iosim) return rule;
  const kernel_menu::Default* k = menu_default(schedule, pass, ctx.problem.d);
  return k != nullptr ? DefaultTile{{k->br, k->bc}, tile_source::kMenu} : rule;
}

}  // namespace iosim
