// flash3 backward, fp16, d = 64: B_r = 128 rows of Q per step, B_c = 128 keys per block, 2 stages of Q and dO.
#include "cuda/kernels/flash3/flash3_bwd.cuh"

namespace iosim::gpu::flash3 {

void add_bwd_d64_fp16(std::vector<BwdKernel>& out) {
  out.push_back(bwd_kernel_entry<cutlass::half_t, DType::fp16, 64, 128>());
}

}  // namespace iosim::gpu::flash3
