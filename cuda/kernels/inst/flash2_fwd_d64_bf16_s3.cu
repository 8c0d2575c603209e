// Instantiation group: flash2 fwd, d = 64, bf16, 3 K/V stages: empty in the default build; the
// menu's variants with 3 stages when IOSIM_CUDA_FULL_TILES is defined.
#include "cuda/kernels/flash2_fwd.cuh"

namespace iosim::gpu::detail {

void register_flash2_fwd_d64_bf16_s3(std::vector<KernelEntry>& out) { register_flash2_fwd_group<__nv_bfloat16, 64, 3>(out); }

}  // namespace iosim::gpu::detail
