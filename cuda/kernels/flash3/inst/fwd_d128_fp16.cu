// flash3 forward, fp16, d = 128: the default tile (128 × 128, 2 K/V stages).
#include "cuda/kernels/flash3/flash3_fwd.cuh"

namespace iosim::gpu::flash3 {

void add_fwd_d128_fp16(std::vector<FwdKernel>& out) { out.push_back(fwd_kernel_entry<cutlass::half_t, DType::fp16, 128>()); }

}  // namespace iosim::gpu::flash3
