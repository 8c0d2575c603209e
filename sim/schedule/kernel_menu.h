// The kernel menu as the model sees it: the CUDA kernels' table (cuda/kernels/menu.csv), generated into
// the build tree by cuda/kernels/generate_kernels.py as kernel_menu::kHeadDims, kDefaults and kKernels.
// Where the menu compiles a kernel for a schedule's pass and head dimension, the model's default kernel
// (tile, warps and stages) is that kernel's default, so that `iosim --schedule S` and `iosim measure
// --schedule S` count the same kernel, and the time model prices it from its compiled record.
#pragma once

#include <cstdint>
#include <string_view>

#include "iosim_generated/kernel_menu.h"
#include "sim/core/dtype.h"
#include "sim/schedule/schedule.h"
#include "sim/schedule/tile_choice.h"

namespace iosim {

/// The menu's default kernel of `schedule`'s pass at head dimension d, or nullptr where none is compiled.
[[nodiscard]] const kernel_menu::Default* menu_default(std::string_view schedule, Pass pass, std::uint64_t d);

/// Whether a menu kernel that needs `menu_arch` (the arch column: sm80, sm90a) runs on a GPU of
/// architecture `arch` (a config's: sm_80, sm_90, sm_90a): sm80's on sm_80 and later, sm90a's on sm_90 alone.
[[nodiscard]] bool menu_arch_runs_on(std::string_view menu_arch, std::string_view arch);

/// The menu's kernel of `schedule`'s pass at d and `dtype` with this tile, warps and stages that runs on
/// `arch`, or nullptr where the menu has none.
[[nodiscard]] const kernel_menu::Kernel* menu_kernel(std::string_view schedule, Pass pass, std::uint64_t d, DType dtype,
                                                     TileShape tile, std::uint32_t warps, std::uint32_t stages,
                                                     std::string_view arch);

/// `schedule`'s default tile for `pass` at ctx's head dimension: the menu's default kernel's tile where the
/// menu has one and ctx asks for iosim's kernels, else `rule` (the menu is iosim's kernels: with
/// `--kernels pytorch`, flash2's default stays FlashAttention-2's own, the tile PyTorch's kernels run).
[[nodiscard]] DefaultTile menu_tile_or(std::string_view schedule, Pass pass, const ScheduleContext& ctx,
                                       DefaultTile rule);

/// A schedule's default kernel: its tile (and where it comes from), warps and stages.
struct DefaultKernel {
  DefaultTile tile;
  std::uint32_t warps = 0;
  std::uint32_t stages = 0;
};

/// As menu_tile_or, with the warps and stages: the menu's default kernel whole where menu_tile_or takes
/// its tile and the user gives none (--br/--bc), else `rule`'s warps and stages; a user's --warps and
/// --stages replace either.
[[nodiscard]] DefaultKernel menu_kernel_or(std::string_view schedule, Pass pass, const ScheduleContext& ctx,
                                           DefaultKernel rule);

}  // namespace iosim
