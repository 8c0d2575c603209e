// fwd_kernels() and bwd_kernels() (flash3_fwd.h, flash3_bwd.h): flash3's own descriptors of the kernel
// registry's flash3 rows (KernelEntry::native; cuda/kernels/menu.csv, arch sm90a), in the menu's order.
// Plain C++: empty lists in a build without flash3.
#include <string_view>
#include <vector>

#include "cuda/kernels/flash3/flash3_bwd.h"
#include "cuda/kernels/flash3/flash3_fwd.h"
#include "cuda/kernels/registry.h"

namespace iosim::gpu::flash3 {

namespace {

/// The natives of the registry's flash3 entries of one pass (their type: the pass's descriptor).
template <class Kernel>
std::vector<Kernel> natives(Direction pass) {
  std::vector<Kernel> out;
  for (const detail::KernelEntry& e : detail::kernel_registry()) {
    if (e.schedule == std::string_view("flash3") && e.pass == pass && e.native != nullptr) {
      out.push_back(*static_cast<const Kernel*>(e.native));
    }
  }
  return out;
}

}  // namespace

const std::vector<FwdKernel>& fwd_kernels() {
  static const std::vector<FwdKernel> all = natives<FwdKernel>(Direction::fwd);
  return all;
}

const std::vector<BwdKernel>& bwd_kernels() {
  static const std::vector<BwdKernel> all = natives<BwdKernel>(Direction::bwd);
  return all;
}

}  // namespace iosim::gpu::flash3
