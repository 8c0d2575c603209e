// The kernel menu as the model sees it: the CUDA kernels' table (cuda/kernels/menu.csv), generated into
// the build tree by cuda/kernels/generate_kernels.py as kernel_menu::kHeadDims and kernel_menu::kDefaults.
// Where the menu compiles a kernel for a schedule's pass and head dimension, the model's default tile is
// that kernel's default, so that `iosim --schedule S` and `iosim measure --schedule S` count the same tile.
#pragma once

#include <cstdint>
#include <string_view>

#include "iosim_generated/kernel_menu.h"
#include "sim/schedule/schedule.h"
#include "sim/schedule/tile_choice.h"

namespace iosim {

/// The menu's default kernel of `schedule`'s pass at head dimension d, or nullptr where none is compiled.
[[nodiscard]] const kernel_menu::Default* menu_default(std::string_view schedule, Pass pass, std::uint64_t d);

/// `schedule`'s default tile for `pass` at ctx's head dimension: the menu's default kernel's tile where the
/// menu has one and ctx asks for iosim's kernels, else `rule` (the menu is iosim's kernels: with
/// `--kernels pytorch`, flash2's default stays FlashAttention-2's own, the tile PyTorch's kernels run).
[[nodiscard]] DefaultTile menu_tile_or(std::string_view schedule, Pass pass, const ScheduleContext& ctx,
                                       DefaultTile rule);

}  // namespace iosim
