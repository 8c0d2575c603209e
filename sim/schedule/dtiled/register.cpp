// dtiled's registry entry (registry.h says what an entry holds).
#include <array>
#include <vector>

#include "sim/schedule/registry.h"

namespace iosim {

namespace detail {
std::unique_ptr<Schedule> make_dtiled_fwd(const ScheduleContext& ctx);  // dtiled.cpp
std::vector<KernelFamily> dtiled_families();  // families.cpp
}  // namespace detail

namespace {

constexpr std::array kDtiledKernels = {KernelFamilyOf{"dtiled_fwd", "dtiled"}};

}  // namespace

ScheduleEntry register_dtiled() {
  return ScheduleEntry{.name = "dtiled",
                       .summary = "tiled attention that also tiles d, for SRAM below d² (Saha & Ye 2024)",
                       .fwd = &detail::make_dtiled_fwd,
                       .kernels = kDtiledKernels,
                       .caps = ScheduleCaps{.tile_search = true},
                       .bounds = BoundsRole{.small_sram = true},
                       .families = &detail::dtiled_families};
}

}  // namespace iosim
