// The one registration template: a row of the kernel menu (cuda/kernels/menu.csv) as a registry entry.
// The instantiation files that cuda/kernels/generate_kernels.py writes into the build tree call it once
// per row, with the row's kernel descriptor K (<Name>Kernel in cuda/kernels/<name>.cuh: its pass, which
// rows its traits accept, the traits and the launcher; optionally kDispatched = false for a harness-only
// kernel and native<T, Tr>(), the kernel's own descriptor: see KernelEntry).
#pragma once

#include "cuda/kernels/launch_util.cuh"
#include "cuda/kernels/registry.h"

namespace iosim::gpu::detail {

template <class K, class T, int D, int BR, int BC, int WARPS, int STAGES>
[[nodiscard]] KernelEntry menu_entry(std::string_view schedule) {
  static_assert(K::template accepts<D, BR, BC, WARPS, STAGES>(),
                "a row of cuda/kernels/menu.csv that this kernel's traits reject");
  using Tr = typename K::template Traits<D, BR, BC, WARPS, STAGES>;
  KernelEntry e{schedule, K::kPass, D, kDTypeOf<T>, BR, BC, Tr::kSmemBytes, &K::template launch<T, Tr>, WARPS, STAGES};
  if constexpr (requires { K::kDispatched; }) e.dispatched = K::kDispatched;
  if constexpr (requires { K::template native<T, Tr>(); }) e.native = K::template native<T, Tr>();
  return e;
}

}  // namespace iosim::gpu::detail
