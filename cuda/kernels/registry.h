// The registry of compiled kernel instantiations: (schedule, pass, d, dtype, B_r, B_c, warps, stages) →
// launcher. Its rows are the kernel menu's (cuda/kernels/menu.csv): kernel_registry() and the
// instantiation files are generated from the table into the build tree (generate_kernels.py), each row
// one menu_entry() (menu_entry.cuh). Naive has no entries: cuBLAS picks its own tiles (dispatch calls
// cuda/kernels/naive.h directly).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string_view>
#include <vector>

#include "cuda/kernels/launch.h"

namespace iosim::gpu::detail {

/// Enqueues every kernel of one schedule's pass (spec's shape, this entry's d, dtype and tile).
using Launcher = void (*)(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream);

struct KernelEntry {
  std::string_view schedule;  ///< the schedule whose kernel this is, by its registry name (KernelSpec::schedule)
  Direction pass = Direction::fwd;
  int d = 0;
  DType dtype = DType::fp16;
  int br = 0;
  int bc = 0;
  std::size_t smem_bytes = 0;  ///< dynamic shared memory per block of the pass's main kernel
  Launcher launch = nullptr;
  int warps = 0;   ///< warps per block of the main kernel
  int stages = 1;  ///< copies of the streamed K/V tiles in its shared memory
};

/// Every compiled instantiation, in the menu's order: within one (schedule, pass, d, dtype) the default
/// kernel first, and within a tile its default variant first (generated: registry_menu.cpp).
[[nodiscard]] const std::vector<KernelEntry>& kernel_registry();

/// The entry that runs `spec`, or nullptr when its (schedule, pass, d, dtype, tile) is not compiled or no
/// entry of it has the warps and stages spec asks for (0: any; the first registered of the tile).
[[nodiscard]] const KernelEntry* find_kernel(const KernelSpec& spec);

}  // namespace iosim::gpu::detail
