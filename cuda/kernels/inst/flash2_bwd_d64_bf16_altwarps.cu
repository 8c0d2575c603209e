// Instantiation group: flash2 bwd, d = 64, bf16, each tile with its other warp count (4 or 8) where
// that fits too: empty in the default build; filled when IOSIM_CUDA_FULL_TILES is defined.
#include "cuda/kernels/flash2_bwd.cuh"

namespace iosim::gpu::detail {

void register_flash2_bwd_d64_bf16_altwarps(std::vector<KernelEntry>& out) { register_flash2_bwd_group<__nv_bfloat16, 64, true>(out); }

}  // namespace iosim::gpu::detail
