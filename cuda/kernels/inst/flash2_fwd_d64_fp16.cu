// Instantiation group: flash2 fwd, d = 64, fp16, 2 K/V stages. The default kernel; the rest of the
// menu with 2 stages when IOSIM_CUDA_FULL_TILES is defined. One file per group so that the groups
// compile in parallel.
#include "cuda/kernels/flash2_fwd.cuh"

namespace iosim::gpu::detail {

void register_flash2_fwd_d64_fp16(std::vector<KernelEntry>& out) { register_flash2_fwd_group<__half, 64, 2>(out); }

}  // namespace iosim::gpu::detail
