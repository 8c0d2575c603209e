// Instantiation group: flashdecode (split and combine kernels), d = 64, bf16: both variants (packed,
// per query head) with 1, 2 and 3 K/V stages. One file per group so that the groups compile in parallel.
#include "cuda/kernels/flashdecode.cuh"

namespace iosim::gpu::detail {

void register_flashdecode_d64_bf16(std::vector<KernelEntry>& out) { register_flashdecode_group<__nv_bfloat16, 64>(out); }

}  // namespace iosim::gpu::detail
