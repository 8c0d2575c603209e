// naive's and eager's registry entries (registry.h says what an entry holds). eager is naive's code
// with PyTorch's eager operators' extra kernels (naive_fwd.cpp, naive_bwd.cpp; eager.h).
#include <array>

#include "sim/exec/executor.h"
#include "sim/schedule/registry.h"

namespace iosim {

namespace detail {
std::unique_ptr<Schedule> make_naive_fwd(const ScheduleContext& ctx);  // naive_fwd.cpp
std::unique_ptr<Schedule> make_naive_bwd(const ScheduleContext& ctx);  // naive_bwd.cpp
std::unique_ptr<Schedule> make_eager_fwd(const ScheduleContext& ctx);  // naive_fwd.cpp
std::unique_ptr<Schedule> make_eager_bwd(const ScheduleContext& ctx);  // naive_bwd.cpp
}  // namespace detail

namespace {

constexpr std::array<KernelFamilyOf, 0> kNaiveKernels{};  // cuBLAS GEMMs and softmax: the library family
// PyTorch's eager operators (the `eager` schedule): cuBLAS GEMMs (the library family) and ATen's
// element-wise and softmax kernels, priced at the rates the config measured (kernel_family.cpp).
constexpr std::array kEagerKernels = {
    KernelFamilyOf{"eager_scale", "torch-unary"},        KernelFamilyOf{"eager_softmax", "torch-softmax-fwd"},
    KernelFamilyOf{"eager_ds_mul", "torch-binary"},      KernelFamilyOf{"eager_ds", "torch-softmax-bwd"},
    KernelFamilyOf{"eager_ds_scale", "torch-unary"},     KernelFamilyOf{"eager_dk_copy", "torch-unary"}};
// naive's CUDA kernels' device tensors (cuda_kernels.h): S and P, dP and dS in HBM; its backward sums a
// group's dK, dV in its GEMMs, so it has no per-query-head scratch.
constexpr std::array kNaiveCudaFwdWrites = {Tensor::O, Tensor::S, Tensor::P};
constexpr std::array kNaiveCudaBwdWrites = {Tensor::dV, Tensor::dP, Tensor::dS, Tensor::dQ, Tensor::dK};

}  // namespace

ScheduleEntry register_naive() {
  return ScheduleEntry{.name = "naive",
                       .summary = "standard attention: S and P written to HBM and read back (Algorithms 0 and 3)",
                       .by_default = true,
                       .fwd = &detail::make_naive_fwd,
                       .bwd = &detail::make_naive_bwd,
                       .executor = &exec::kNaiveExecutor,
                       .cuda = CudaKernels{.fwd = {kNaiveCudaFwdWrites, kCudaFwdResults},
                                           .bwd = {kNaiveCudaBwdWrites, kCudaBwdResults},
                                           .library = true},
                       .kernels = kNaiveKernels,
                       .caps = ScheduleCaps{.baseline = true, .streaming = true},
                       .bounds = BoundsRole{.n_sweep = true},
                       .validate = ValidateRole{.library_tiles = true}};
}

ScheduleEntry register_eager() {
  return ScheduleEntry{.name = "eager",
                       .summary = "standard attention as PyTorch's eager operators run it: matmul, × τ, softmax, "
                                  "matmul, each a kernel (one more pass over S; the backward's dP ∘ P and × τ too)",
                       .fwd = &detail::make_eager_fwd,
                       .bwd = &detail::make_eager_bwd,
                       .executor = &exec::kNaiveExecutor,
                       .kernels = kEagerKernels,
                       .caps = ScheduleCaps{.streaming = true, .dense_mha_only = true},
                       .pytorch_kernels = kEagerKernels};
}

}  // namespace iosim
