// flash3 forward, bf16, d = 64, the plain order (no ping-pong, no intra-warpgroup overlap): the
// default tile (128 × 128, 2 K/V stages). Full builds only (IOSIM_CUDA_FULL_TILES).
#include "cuda/kernels/flash3/flash3_fwd.cuh"

namespace iosim::gpu::flash3 {

void add_fwd_d64_bf16_plain(std::vector<FwdKernel>& out) {
  out.push_back(fwd_kernel_entry<cutlass::bfloat16_t, DType::bf16, 64, false>());
}

}  // namespace iosim::gpu::flash3
