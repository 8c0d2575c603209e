// The flash3 backward kernels of this build, in one list (cuda/kernels/flash3/flash3_bwd.h). Each
// instantiation file (inst/bwd_*) adds its kernel; the default build compiles fp16 d = 128 only,
// IOSIM_CUDA_FULL_TILES the rest.
#include "cuda/kernels/flash3/flash3_bwd.h"

namespace iosim::gpu::flash3 {

void add_bwd_d128_fp16(std::vector<BwdKernel>& out);
#ifdef IOSIM_CUDA_FULL_TILES
void add_bwd_d128_bf16(std::vector<BwdKernel>& out);
void add_bwd_d64_fp16(std::vector<BwdKernel>& out);
void add_bwd_d64_bf16(std::vector<BwdKernel>& out);
#endif

const std::vector<BwdKernel>& bwd_kernels() {
  static const std::vector<BwdKernel> all = [] {
    std::vector<BwdKernel> out;
    add_bwd_d128_fp16(out);
#ifdef IOSIM_CUDA_FULL_TILES
    add_bwd_d128_bf16(out);
    add_bwd_d64_fp16(out);
    add_bwd_d64_bf16(out);
#endif
    return out;
  }();
  return all;
}

const BwdKernel* find_bwd(DType dtype, int d, int br, int bc, int stages) {
  for (const BwdKernel& k : bwd_kernels()) {
    if (k.dtype == dtype && k.d == d && k.br == br && k.bc == bc && k.stages == stages) return &k;
  }
  return nullptr;
}

}  // namespace iosim::gpu::flash3
