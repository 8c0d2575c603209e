// The registry of compiled kernel instantiations: (schedule, pass, d, dtype, B_r, B_c, warps, stages) →
// launcher. Its rows are the kernel menu's (cuda/kernels/menu.csv): kernel_registry() and the
// instantiation files are generated from the table into the build tree (generate_kernels.py), each row
// one menu_entry() (menu_entry.cuh), every architecture's rows in the one table (flash3's sm_90a rows
// where the build compiles them). Naive has no entries: cuBLAS picks its own tiles (dispatch calls
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
  /// false: compiled for a harness only (flash3's plain-order forward, flash3_check's comparison);
  /// find_kernel() and compiled_variants() pass it by, so the backend never runs it.
  bool dispatched = true;
  /// The kernel's own descriptor where it has one beside `launch` (schedule flash3: the forward's
  /// flash3::FwdKernel, the backward's flash3::BwdKernel, cuda/kernels/flash3/flash3_*.h), which a
  /// harness launches on its own buffers; nullptr for the rest.
  const void* native = nullptr;
};

/// Every compiled instantiation, in the menu's order: within one (schedule, pass, d, dtype) the default
/// kernel first, and within a tile its default variant first (generated: registry_menu.cpp).
[[nodiscard]] const std::vector<KernelEntry>& kernel_registry();

/// The entry that runs `spec` (dispatched entries only), or nullptr when its (schedule, pass, d, dtype, tile) is not compiled or no
/// entry of it has the warps and stages spec asks for (0: any; the first registered of the tile).
[[nodiscard]] const KernelEntry* find_kernel(const KernelSpec& spec);

}  // namespace iosim::gpu::detail
