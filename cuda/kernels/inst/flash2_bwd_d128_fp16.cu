// Instantiation group: flash2 bwd, d = 128, fp16. The default tile; the rest of the menu when
// IOSIM_CUDA_FULL_TILES is defined. One file per group so that the groups compile in parallel.
#include "cuda/kernels/flash2_bwd.cuh"

namespace iosim::gpu::detail {

void register_flash2_bwd_d128_fp16(std::vector<KernelEntry>& out) { register_flash2_bwd_group<__half, 128, false>(out); }

}  // namespace iosim::gpu::detail
