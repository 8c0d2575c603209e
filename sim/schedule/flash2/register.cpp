// flash2's registry entry (registry.h says what an entry holds): the project's kernels, PyTorch's and
// the project's Triton kernels.
#include <array>
#include <vector>

#include "sim/exec/executor.h"
#include "sim/schedule/flash2/cuda_tensors.h"
#include "sim/schedule/registry.h"

namespace iosim {

namespace detail {
std::unique_ptr<Schedule> make_flash2_fwd(const ScheduleContext& ctx);  // flash2_fwd.cpp
std::unique_ptr<Schedule> make_flash2_bwd(const ScheduleContext& ctx);  // flash2_bwd.cpp
std::vector<KernelFamily> flash2_families();  // families.cpp
}  // namespace detail

namespace {

constexpr std::array kFlash2Kernels = {
    KernelFamilyOf{"flash2_fwd", "fa2-fwd"}, KernelFamilyOf{"flash2_bwd", "fa2-bwd"},
    KernelFamilyOf{"flash2_bwd_preprocess", "elementwise"}, KernelFamilyOf{"flash2_bwd_convert", "elementwise"},
    KernelFamilyOf{"flash2_bwd_group_sum", "elementwise"}};
// PyTorch's FlashAttention-2 (flash_fwd_kernel; flash_bwd_dot_do_o_kernel, flash_bwd_dq_dk_dv_loop_seqk_
// parallel_kernel, flash_bwd_convert_dq_kernel): the same schedule, other compiled kernels. Its group
// sum (grouped K/V heads) is at::sum_out over dk_expanded, an ATen reduction: the library family.
constexpr std::array kFlash2TorchKernels = {
    KernelFamilyOf{"flash2_fwd", "torch-fa2-fwd"}, KernelFamilyOf{"flash2_bwd", "torch-fa2-bwd"},
    KernelFamilyOf{"flash2_bwd_preprocess", "elementwise"}, KernelFamilyOf{"flash2_bwd_convert", "elementwise"},
    KernelFamilyOf{"flash2_bwd_group_sum", "library"},
    // FlashAttention-2's split-KV forward on small grids (flash2_fwd.cpp): the forward's code, split
    KernelFamilyOf{"flashdecode_split", "torch-fa2-fwd"}, KernelFamilyOf{"flashdecode_combine", "elementwise"}};
// The project's Triton kernels (python/iosim/triton/kernels.py): the forward (attn_fwd) in
// FlashAttention-2's order, and the backward's three kernels (flash2_bwd_triton.cpp), each priced from
// its own compiled record.
constexpr std::array kFlash2TritonKernels = {
    KernelFamilyOf{"flash2_fwd", "triton-fa2-fwd"}, KernelFamilyOf{"flash2_bwd_preprocess", "triton-fa2-bwd"},
    KernelFamilyOf{"flash2_bwd_dkdv", "triton-fa2-bwd"}, KernelFamilyOf{"flash2_bwd_dq", "triton-fa2-bwd"}};

}  // namespace

ScheduleEntry register_flash2() {
  return ScheduleEntry{
      .name = "flash2",
      .summary = "FlashAttention-2: one thread block per Q tile (forward), per K/V tile (backward)",
      .by_default = true,
      .fwd = &detail::make_flash2_fwd,
      .bwd = &detail::make_flash2_bwd,
      .executor = &exec::kFlash2Executor,
      .cuda = CudaKernels{.fwd = {detail::kFlash2CudaFwdWrites, kCudaFwdResults},
                          .bwd = {detail::kFlash2CudaBwdWrites, kCudaBwdResults},
                          .paged_fwd = true},
      .kernels = kFlash2Kernels,
      .caps = ScheduleCaps{.tile_search = true,
                           .stages = true,
                           .tiles_default = true,
                           .traced_by_default = true,
                           .paged_fwd = true},
      .bounds = BoundsRole{.n_sweep = true, .at_m = BoundsRole::AtM::quarter_d},
      .validate = ValidateRole{.ragged_and_bf16 = true},
      .pytorch_kernels = kFlash2TorchKernels,
      .triton_kernels = kFlash2TritonKernels,
      .families = &detail::flash2_families};
}

}  // namespace iosim
