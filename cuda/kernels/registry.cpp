// kernel_registry(): every instantiation group, registered explicitly in one place. flash2 forward:
// the 2-stage file of a (d, type) first, so that its default kernel and every tile's 2-stage variants
// come first; flash2 backward: each tile's default warps before its other warp count.
#include "cuda/kernels/registry.h"

#include <algorithm>

#include "cuda/kernels/flash3/entries.h"

namespace iosim::gpu::detail {

const std::vector<KernelEntry>& kernel_registry() {
  static const std::vector<KernelEntry> entries = [] {
    std::vector<KernelEntry> out;
    register_flash1_fwd_d64_fp16(out);
    register_flash1_fwd_d64_bf16(out);
    register_flash1_fwd_d128_fp16(out);
    register_flash1_fwd_d128_bf16(out);
    register_flash1_bwd_d64_fp16(out);
    register_flash1_bwd_d64_bf16(out);
    register_flash1_bwd_d128_fp16(out);
    register_flash1_bwd_d128_bf16(out);
    register_flash2_fwd_d64_fp16(out);
    register_flash2_fwd_d64_fp16_s1(out);
    register_flash2_fwd_d64_fp16_s3(out);
    register_flash2_fwd_d64_bf16(out);
    register_flash2_fwd_d64_bf16_s1(out);
    register_flash2_fwd_d64_bf16_s3(out);
    register_flash2_fwd_d128_fp16(out);
    register_flash2_fwd_d128_fp16_s1(out);
    register_flash2_fwd_d128_fp16_s3(out);
    register_flash2_fwd_d128_bf16(out);
    register_flash2_fwd_d128_bf16_s1(out);
    register_flash2_fwd_d128_bf16_s3(out);
    register_flash2_bwd_d64_fp16(out);
    register_flash2_bwd_d64_fp16_altwarps(out);
    register_flash2_bwd_d64_bf16(out);
    register_flash2_bwd_d64_bf16_altwarps(out);
    register_flash2_bwd_d128_fp16(out);
    register_flash2_bwd_d128_fp16_altwarps(out);
    register_flash2_bwd_d128_bf16(out);
    register_flash2_bwd_d128_bf16_altwarps(out);
    register_flashdecode_d64_fp16(out);
    register_flashdecode_d64_bf16(out);
    register_flashdecode_d128_fp16(out);
    register_flashdecode_d128_bf16(out);
    return out;
  }();
  return entries;
}

const KernelEntry* find_kernel(const KernelSpec& spec) {
  const auto& all = spec.algo == Algo::flash3 ? flash3_registry() : kernel_registry();
  const auto it = std::find_if(all.begin(), all.end(), [&](const KernelEntry& e) {
    return e.algo == spec.algo && e.pass == spec.pass && e.d == spec.d && e.dtype == spec.dtype && e.br == spec.br &&
           e.bc == spec.bc && (spec.warps == 0 || e.warps == spec.warps) && (spec.stages == 0 || e.stages == spec.stages);
  });
  return it == all.end() ? nullptr : &*it;
}

}  // namespace iosim::gpu::detail
