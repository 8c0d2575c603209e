// flashdecode's and flashdecode-heads' registry entries (registry.h says what an entry holds): one
// schedule's code (flashdecode.cpp), a group's query heads packed as one block's rows or not.
#include <array>
#include <vector>

#include "sim/schedule/flashdecode/flashdecode.h"
#include "sim/schedule/registry.h"

namespace iosim {

namespace detail {
std::unique_ptr<Schedule> make_flashdecode_fwd(const ScheduleContext& ctx);  // flashdecode.cpp
std::vector<KernelFamily> flashdecode_families();  // families.cpp
}  // namespace detail

namespace {

constexpr std::array kFlashdecodeKernels = {KernelFamilyOf{"flashdecode_split", "fa2-fwd-split"},
                                            KernelFamilyOf{"flashdecode_combine", "flashdecode-combine"}};
// Its CUDA kernels' device tensors (cuda_kernels.h), forward only: O and L, and the split partials the
// combine pass reads where the K/V splits; L is checked with O.
constexpr std::array kFlashdecodeCudaWrites = {Tensor::O, Tensor::L, Tensor::Opart, Tensor::Lpart};
constexpr std::array kFlashdecodeCudaResults = {Tensor::O, Tensor::L};

}  // namespace

ScheduleEntry register_flashdecode() {
  return ScheduleEntry{.name = "flashdecode",
                       .summary = "split-KV decoding (Flash-Decoding): a group's query heads packed as one block's "
                                  "rows, K/V read once per KV head, split across blocks, then a combine pass",
                       .fwd = &detail::make_flashdecode_fwd,
                       .cuda = CudaKernels{.fwd = {kFlashdecodeCudaWrites, kFlashdecodeCudaResults},
                                           .bwd = {},  // no backward
                                           .decode = true,
                                           .packed_heads = true,
                                           .paged_fwd = true},
                       .kernels = kFlashdecodeKernels,
                       .caps = ScheduleCaps{.tile_search = true, .stages = true, .paged_fwd = true},
                       .validate = ValidateRole{.decode = true},
                       .families = &detail::flashdecode_families};
}

ScheduleEntry register_flashdecode_heads() {
  return ScheduleEntry{.name = "flashdecode-heads",
                       .summary = "flashdecode with one block row set per query head: K/V read once per query head",
                       .fwd = &detail::make_flashdecode_heads_fwd,
                       .cuda = CudaKernels{.fwd = {kFlashdecodeCudaWrites, kFlashdecodeCudaResults},
                                           .bwd = {},  // no backward
                                           .decode = true,
                                           .paged_fwd = true},
                       .kernels = kFlashdecodeKernels,
                       .caps = ScheduleCaps{.paged_fwd = true},
                       .validate = ValidateRole{.decode = true}};  // its family: flashdecode's entry
}

}  // namespace iosim
