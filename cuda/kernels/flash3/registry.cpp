// The flash3 forward kernels of this build, in one list (cuda/kernels/flash3/flash3_fwd.h). Each
// instantiation file (inst/) adds its kernel; the default build compiles fp16 d = 128 (overlapped) only (so
// that CI sees a break within its time), IOSIM_CUDA_FULL_TILES the rest; the overlapped kernel of a
// (type, d) is listed before its plain one. The backend's kernel registry offers this list's overlapped
// kernels to `iosim measure` and `validate` (cuda/kernels/flash3/entries.cpp).
#include "cuda/kernels/flash3/flash3_fwd.h"

namespace iosim::gpu::flash3 {

void add_fwd_d128_fp16(std::vector<FwdKernel>& out);
#ifdef IOSIM_CUDA_FULL_TILES
void add_fwd_d128_bf16(std::vector<FwdKernel>& out);
void add_fwd_d64_fp16(std::vector<FwdKernel>& out);
void add_fwd_d64_bf16(std::vector<FwdKernel>& out);
void add_fwd_d128_fp16_plain(std::vector<FwdKernel>& out);
void add_fwd_d128_bf16_plain(std::vector<FwdKernel>& out);
void add_fwd_d64_fp16_plain(std::vector<FwdKernel>& out);
void add_fwd_d64_bf16_plain(std::vector<FwdKernel>& out);
#endif

const std::vector<FwdKernel>& fwd_kernels() {
  static const std::vector<FwdKernel> all = [] {
    std::vector<FwdKernel> out;
    add_fwd_d128_fp16(out);
#ifdef IOSIM_CUDA_FULL_TILES
    add_fwd_d128_bf16(out);
    add_fwd_d64_fp16(out);
    add_fwd_d64_bf16(out);
    add_fwd_d128_fp16_plain(out);
    add_fwd_d128_bf16_plain(out);
    add_fwd_d64_fp16_plain(out);
    add_fwd_d64_bf16_plain(out);
#endif
    return out;
  }();
  return all;
}

const FwdKernel* find_fwd(DType dtype, int d, int br, int bc, int stages, bool overlap) {
  for (const FwdKernel& k : fwd_kernels()) {
    if (k.dtype == dtype && k.d == d && k.br == br && k.bc == bc && k.stages == stages && k.overlap == overlap) return &k;
  }
  return nullptr;
}

}  // namespace iosim::gpu::flash3
