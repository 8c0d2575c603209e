// Instantiation group: flash2 fwd, d = 128, bf16, 1 K/V stage: empty in the default build; the
// menu's variants with 1 stage when IOSIM_CUDA_FULL_TILES is defined.
#include "cuda/kernels/flash2_fwd.cuh"

namespace iosim::gpu::detail {

void register_flash2_fwd_d128_bf16_s1(std::vector<KernelEntry>& out) { register_flash2_fwd_group<__nv_bfloat16, 128, 1>(out); }

}  // namespace iosim::gpu::detail
