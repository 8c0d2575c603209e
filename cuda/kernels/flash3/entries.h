// flash3 in the backend (cuda/backend.h): its kernels (flash3_fwd.h's fwd_kernels(), the one list) as
// entries of the kernel registry (cuda/kernels/registry.h), and what the backend refuses of a flash3
// spec. Plain C++ and the runtime's types; built whether or not this build has flash3 (IOSIM_FLASH3).
#pragma once

#include <string>
#include <vector>

#include "cuda/backend.h"
#include "cuda/kernels/registry.h"

namespace iosim::gpu::detail {

/// One entry per overlapped forward kernel of fwd_kernels() (stages: its K/V stages) and per backward
/// kernel of bwd_kernels() (stages: its Q/dO stages); warps = 384 threads / 32. The plain-order
/// forward kernels stay flash3_check's. Empty in a build without flash3.
[[nodiscard]] const std::vector<KernelEntry>& flash3_registry();

/// Empty, or one line saying why this build cannot run a flash3 spec whatever the GPU: a build without
/// flash3, a pass, type and head dimension not compiled, a tile, warps or stages
/// other than the kernel's (B_r = B_c = 0 is left to dispatch: "no tile given").
[[nodiscard]] std::string flash3_unsupported_in_build(const KernelSpec& spec);

/// Empty, or one line saying why `dev` cannot run flash3: sm_90a code runs on compute capability 9.0 only.
[[nodiscard]] std::string flash3_unsupported_on(const DeviceInfo& dev);

}  // namespace iosim::gpu::detail
