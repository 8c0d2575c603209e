// flash1's registry entry (registry.h says what an entry holds).
#include <array>
#include <vector>

#include "sim/exec/executor.h"
#include "sim/schedule/registry.h"

namespace iosim {

namespace detail {
std::unique_ptr<Schedule> make_flash1_fwd(const ScheduleContext& ctx);  // flash1_fwd.cpp
std::unique_ptr<Schedule> make_flash1_bwd(const ScheduleContext& ctx);  // flash1_bwd.cpp
std::vector<KernelFamily> flash1_families();  // families.cpp
}  // namespace detail

namespace {

constexpr std::array kFlash1Kernels = {
    KernelFamilyOf{"flash1_fwd", "fa1-fwd"},          KernelFamilyOf{"flash1_init", "elementwise"},
    KernelFamilyOf{"flash1_bwd", "fa1-bwd"},          KernelFamilyOf{"flash1_bwd_init_dq", "elementwise"},
    KernelFamilyOf{"flash1_bwd_init_dkv", "elementwise"}, KernelFamilyOf{"flash1_bwd_group_sum", "elementwise"}};
// Its CUDA kernels' device tensors (cuda_kernels.h): the forward's O and running row sum and max; the
// backward's gradients, with grouped K/V heads dK, dV per query head first.
constexpr std::array kFlash1CudaFwdWrites = {Tensor::O, Tensor::l, Tensor::m};
constexpr std::array kFlash1CudaBwdWrites = {Tensor::dQ, Tensor::dK, Tensor::dV, Tensor::dKexp, Tensor::dVexp};

}  // namespace

ScheduleEntry register_flash1() {
  return ScheduleEntry{
      .name = "flash1",
      .summary = "FlashAttention, Algorithms 1 and 4: K/V outer loop, O (dQ) read and written every step",
      .by_default = true,
      .fwd = &detail::make_flash1_fwd,
      .bwd = &detail::make_flash1_bwd,
      .executor = &exec::kFlash1Executor,
      .cuda = CudaKernels{.fwd = {kFlash1CudaFwdWrites, kCudaFwdResults},
                          .bwd = {kFlash1CudaBwdWrites, kCudaBwdResults}},
      .kernels = kFlash1Kernels,
      .caps = ScheduleCaps{.tile_search = true, .traced_by_default = true},
      .bounds = BoundsRole{.n_sweep = true,
                           .at_m = BoundsRole::AtM::own_policy,
                           .policy = "paper default B_c = ⌈M/4d⌉, B_r = min(B_c, d), halved to fit"},
      .validate = ValidateRole{.block_per_head = true},
      .families = &detail::flash1_families};
}

}  // namespace iosim
