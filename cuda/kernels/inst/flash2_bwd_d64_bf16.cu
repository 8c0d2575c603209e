// Instantiation group: flash2 bwd, d = 64, bf16. The default tile; the rest of the menu when
// IOSIM_CUDA_FULL_TILES is defined. One file per group so that the groups compile in parallel.
#include "cuda/kernels/flash2_bwd.cuh"

namespace iosim::gpu::detail {

void register_flash2_bwd_d64_bf16(std::vector<KernelEntry>& out) { register_flash2_bwd_group<__nv_bfloat16, 64, false>(out); }

}  // namespace iosim::gpu::detail
