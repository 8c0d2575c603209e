// What the backend (cuda/backend.h) refuses of a flash3 spec beyond what the kernel registry says: a
// build without flash3, and a GPU that cannot run sm_90a code. flash3's kernels are rows of the kernel
// menu (cuda/kernels/menu.csv, arch sm90a) like every other; this is the one thing about them the table
// cannot say. Plain C++ and the runtime's types; built whether or not this build has flash3 (IOSIM_FLASH3).
#pragma once

#include <string>

#include "cuda/backend.h"

namespace iosim::gpu::detail {

/// Empty, or one line saying why this build cannot run a flash3 spec whatever the GPU: a build without
/// flash3, a pass, type and head dimension not compiled, a tile, warps or stages
/// other than the kernel's (B_r = B_c = 0 is left to dispatch: "no tile given").
[[nodiscard]] std::string flash3_unsupported_in_build(const KernelSpec& spec);

/// Empty, or one line saying why `dev` cannot run flash3: sm_90a code runs on compute capability 9.0 only.
[[nodiscard]] std::string flash3_unsupported_on(const DeviceInfo& dev);

}  // namespace iosim::gpu::detail
