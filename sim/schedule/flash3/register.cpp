// flash3's registry entry (registry.h says what an entry holds).
#include <array>
#include <vector>

#include "sim/schedule/flash2/cuda_tensors.h"
#include "sim/schedule/registry.h"

namespace iosim {

namespace detail {
std::unique_ptr<Schedule> make_flash3_fwd(const ScheduleContext& ctx);  // flash3_fwd.cpp
std::unique_ptr<Schedule> make_flash3_bwd(const ScheduleContext& ctx);  // flash3_bwd.cpp
std::vector<KernelFamily> flash3_families();  // families.cpp
}  // namespace detail

namespace {

constexpr std::array kFlash3Kernels = {
    KernelFamilyOf{"flash3_fwd", "fa3-fwd"}, KernelFamilyOf{"flash3_fwd_ss", "fa3-fwd-ss"},
    KernelFamilyOf{"flash3_bwd", "fa3-bwd"}, KernelFamilyOf{"flash3_bwd_preprocess", "elementwise"},
    KernelFamilyOf{"flash3_bwd_convert", "elementwise"}, KernelFamilyOf{"flash3_bwd_group_sum", "elementwise"}};

}  // namespace

ScheduleEntry register_flash3() {
  return ScheduleEntry{
      .name = "flash3",
      .summary = "FlashAttention-3 on Hopper (sm_90): warp-specialised, TMA-loaded K/V stages, wgmma, "
                 "ping-pong consumer warpgroups; flash2's traffic",
      .fwd = &detail::make_flash3_fwd,
      .bwd = &detail::make_flash3_bwd,
      .cuda = CudaKernels{.fwd = {detail::kFlash2CudaFwdWrites, kCudaFwdResults},
                          .bwd = {detail::kFlash2CudaBwdWrites, kCudaBwdResults},
                          .hopper_tma = true,
                          .paged_fwd = true},
      .kernels = kFlash3Kernels,
      .caps = ScheduleCaps{.tile_search = true,
                           .stages = true,
                           .warpgroups = true,
                           .hopper_only = true,
                           .paged_fwd = true},
      .validate = ValidateRole{.ragged_and_bf16 = true},
      .families = &detail::flash3_families};
}

}  // namespace iosim
