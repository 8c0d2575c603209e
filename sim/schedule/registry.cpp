// The registry: every schedule's entry, explicitly, in one place (registry.h says what an entry holds).
#include "sim/schedule/registry.h"

#include <array>
#include <string>

#include "sim/core/error.h"
#include "sim/exec/executor.h"
#include "sim/schedule/factories.h"

namespace iosim {

namespace {

using Caps = ScheduleCaps;
using AtM = BoundsRole::AtM;

constexpr std::array<KernelFamilyOf, 0> kNaiveKernels{};  // cuBLAS GEMMs and softmax: the library family
// PyTorch's eager operators (the `eager` schedule): cuBLAS GEMMs (the library family) and ATen's
// element-wise and softmax kernels, priced at the rates the config measured (kernel_family.cpp).
constexpr std::array kEagerKernels = {
    KernelFamilyOf{"eager_scale", "torch-unary"},        KernelFamilyOf{"eager_softmax", "torch-softmax-fwd"},
    KernelFamilyOf{"eager_ds_mul", "torch-binary"},      KernelFamilyOf{"eager_ds", "torch-softmax-bwd"},
    KernelFamilyOf{"eager_ds_scale", "torch-unary"},     KernelFamilyOf{"eager_dk_copy", "torch-unary"}};
constexpr std::array kFlash1Kernels = {
    KernelFamilyOf{"flash1_fwd", "fa1-fwd"},          KernelFamilyOf{"flash1_init", "elementwise"},
    KernelFamilyOf{"flash1_bwd", "fa1-bwd"},          KernelFamilyOf{"flash1_bwd_init_dq", "elementwise"},
    KernelFamilyOf{"flash1_bwd_init_dkv", "elementwise"}, KernelFamilyOf{"flash1_bwd_group_sum", "elementwise"}};
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
constexpr std::array kFlashdecodeKernels = {KernelFamilyOf{"flashdecode_split", "fa2-fwd-split"},
                                            KernelFamilyOf{"flashdecode_combine", "elementwise"}};
constexpr std::array kDtiledKernels = {KernelFamilyOf{"dtiled_fwd", "dtiled"}};
constexpr std::array kFlash3Kernels = {
    KernelFamilyOf{"flash3_fwd", "fa3-fwd"}, KernelFamilyOf{"flash3_fwd_ss", "fa3-fwd-ss"},
    KernelFamilyOf{"flash3_bwd", "fa3-bwd"}, KernelFamilyOf{"flash3_bwd_preprocess", "elementwise"},
    KernelFamilyOf{"flash3_bwd_convert", "elementwise"}, KernelFamilyOf{"flash3_bwd_group_sum", "elementwise"}};

const std::array kEntries = {
    ScheduleEntry{.name = "naive",
                  .summary = "standard attention: S and P written to HBM and read back (Algorithms 0 and 3)",
                  .by_default = true,
                  .fwd = &detail::make_naive_fwd,
                  .bwd = &detail::make_naive_bwd,
                  .executor = &exec::kNaiveExecutor,
                  .cuda = CudaAlgo::naive,
                  .kernels = kNaiveKernels,
                  .caps = Caps{.baseline = true, .streaming = true},
                  .bounds = BoundsRole{.n_sweep = true},
                  .validate = ValidateRole{.library_tiles = true}},
    ScheduleEntry{.name = "flash1",
                  .summary = "FlashAttention, Algorithms 1 and 4: K/V outer loop, O (dQ) read and written every step",
                  .by_default = true,
                  .fwd = &detail::make_flash1_fwd,
                  .bwd = &detail::make_flash1_bwd,
                  .executor = &exec::kFlash1Executor,
                  .cuda = CudaAlgo::flash1,
                  .kernels = kFlash1Kernels,
                  .caps = Caps{.tile_search = true, .traced_by_default = true},
                  .bounds = BoundsRole{.n_sweep = true,
                                       .at_m = AtM::own_policy,
                                       .policy = "paper default B_c = ⌈M/4d⌉, B_r = min(B_c, d), halved to fit"},
                  .validate = ValidateRole{.block_per_head = true}},
    ScheduleEntry{.name = "flash2",
                  .summary = "FlashAttention-2: one thread block per Q tile (forward), per K/V tile (backward)",
                  .by_default = true,
                  .fwd = &detail::make_flash2_fwd,
                  .bwd = &detail::make_flash2_bwd,
                  .executor = &exec::kFlash2Executor,
                  .cuda = CudaAlgo::flash2,
                  .kernels = kFlash2Kernels,
                  .caps = Caps{.tile_search = true,
                               .stages = true,
                               .tiles_default = true,
                               .traced_by_default = true,
                               .paged_fwd = true},
                  .bounds = BoundsRole{.n_sweep = true, .at_m = AtM::quarter_d},
                  .validate = ValidateRole{.ragged_and_bf16 = true},
                  .pytorch_kernels = kFlash2TorchKernels,
                  .triton_kernels = kFlash2TritonKernels},
    ScheduleEntry{.name = "flashdecode",
                  .summary = "split-KV decoding (Flash-Decoding): a group's query heads packed as one block's rows, "
                             "K/V read once per KV head, split across blocks, then a combine pass",
                  .fwd = &detail::make_flashdecode_fwd,
                  .cuda = CudaAlgo::flashdecode,
                  .kernels = kFlashdecodeKernels,
                  .caps = Caps{.tile_search = true, .paged_fwd = true},
                  .validate = ValidateRole{.decode = true}},
    ScheduleEntry{.name = "flashdecode-heads",
                  .summary = "flashdecode with one block row set per query head: K/V read once per query head",
                  .fwd = &detail::make_flashdecode_heads_fwd,
                  .cuda = CudaAlgo::flashdecode_heads,
                  .kernels = kFlashdecodeKernels,
                  .caps = Caps{.paged_fwd = true},
                  .validate = ValidateRole{.decode = true}},
    ScheduleEntry{.name = "dtiled",
                  .summary = "tiled attention that also tiles d, for SRAM below d² (Saha & Ye 2024)",
                  .fwd = &detail::make_dtiled_fwd,
                  .kernels = kDtiledKernels,
                  .caps = Caps{.tile_search = true},
                  .bounds = BoundsRole{.small_sram = true}},
    ScheduleEntry{.name = "flash3",
                  .summary = "FlashAttention-3 on Hopper (sm_90): warp-specialised, TMA-loaded K/V stages, wgmma, "
                             "ping-pong consumer warpgroups; flash2's traffic",
                  .fwd = &detail::make_flash3_fwd,
                  .bwd = &detail::make_flash3_bwd,
                  .cuda = CudaAlgo::flash3,
                  .kernels = kFlash3Kernels,
                  .caps = Caps{.tile_search = true, .stages = true, .warpgroups = true, .hopper_only = true},
                  .validate = ValidateRole{.ragged_and_bf16 = true}},
    ScheduleEntry{.name = "eager",
                  .summary = "standard attention as PyTorch's eager operators run it: matmul, × τ, softmax, matmul, "
                             "each a kernel (one more pass over S; the backward's dP ∘ P and × τ too)",
                  .fwd = &detail::make_eager_fwd,
                  .bwd = &detail::make_eager_bwd,
                  .executor = &exec::kNaiveExecutor,
                  .kernels = kEagerKernels,
                  .caps = Caps{.streaming = true, .dense_mha_only = true},
                  .pytorch_kernels = kEagerKernels},
};

}  // namespace

std::span<const ScheduleEntry> schedule_catalog() { return kEntries; }

const ScheduleEntry* find_schedule(std::string_view name) {
  return first_schedule([&](const ScheduleEntry& e) { return e.name == name; });
}

const ScheduleEntry& schedule_entry(std::string_view name) {
  if (const ScheduleEntry* e = find_schedule(name)) return *e;
  throw InputError("unknown schedule '" + std::string(name) + "' (known: " +
                   schedule_names([](const ScheduleEntry&) { return true; }, ", ", ", ") + ")");
}

std::string_view name(CudaAlgo a) {
  const ScheduleEntry* e = first_schedule([&](const ScheduleEntry& s) { return s.cuda == a; });
  return e != nullptr ? e->name : "?";
}

bool has_pass(std::string_view name, Pass pass) {
  const ScheduleEntry* e = find_schedule(name);
  return e != nullptr && e->factory(pass) != nullptr;
}

std::unique_ptr<Schedule> make_schedule(std::string_view name, Pass pass, const ScheduleContext& ctx) {
  const ScheduleEntry& e = schedule_entry(name);
  const ScheduleFactory f = e.factory(pass);
  if (f == nullptr) {
    throw InputError(std::string(name) + " has no " + (pass == Pass::fwd ? "forward" : "backward") + " pass");
  }
  return f(ctx);
}

}  // namespace iosim
