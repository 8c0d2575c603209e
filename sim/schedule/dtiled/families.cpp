// dtiled's kernel family (kernel_family.h). How it was fitted: kernel_family.cpp.
#include <vector>

#include "sim/schedule/flashdecode/split_family.h"
#include "sim/schedule/kernel_family.h"

namespace iosim::detail {

// The d-tiled schedule has no kernel in cuda/: described as flashdecode's split kernel, a
// FlashAttention-2 forward with fa2-fwd's registers and waits and its one-stage overhead (it runs one
// stage), that reads Q and K by slices of d from shared memory (Q from shared memory, not registers).
std::vector<KernelFamily> dtiled_families() {
  KernelFamily dtiled = fa2_fwd_split_family();
  dtiled.name = "dtiled";
  dtiled.source = "model only: d-sliced FlashAttention-2 forward (no iosim kernel)";
  dtiled.matmuls = {kRowsSharedShared, kRowsRegShared};
  dtiled.smem_layout = SharedLayout::unknown;  // no kernel: its layout is not the decode kernel's
  return {dtiled};
}

}  // namespace iosim::detail
