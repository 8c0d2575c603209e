// find_kernel(): a spec's entry of the registry (kernel_registry() is generated from cuda/kernels/menu.csv
// into the build tree: registry_menu.cpp).
#include "cuda/kernels/registry.h"

#include <algorithm>

namespace iosim::gpu::detail {

const KernelEntry* find_kernel(const KernelSpec& spec) {
  const auto& all = kernel_registry();
  const auto it = std::find_if(all.begin(), all.end(), [&](const KernelEntry& e) {
    return e.dispatched && e.schedule == spec.schedule && e.pass == spec.pass && e.d == spec.d && e.dtype == spec.dtype &&
           e.br == spec.br && e.bc == spec.bc && (spec.warps == 0 || e.warps == spec.warps) &&
           (spec.stages == 0 || e.stages == spec.stages);
  });
  return it == all.end() ? nullptr : &*it;
}

}  // namespace iosim::gpu::detail
