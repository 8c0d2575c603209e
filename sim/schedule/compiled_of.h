// Which compiled record prices which kernel: a pass of the project's Triton kernels is several kernels
// (the backward's preprocess, dK/dV and dQ), each compiled on its own; KernelRequest::compiled_set holds
// their records, each naming the Triton kernel it was compiled from (CompiledKernel::kernel).
#pragma once

#include <string_view>

#include "sim/schedule/compiled_kernel.h"
#include "sim/schedule/schedule.h"

namespace iosim {

/// The Triton kernel (python/iosim/triton/kernels.py) that runs iosim's kernel `kernel` of flash2 under
/// --kernels triton; "" for a kernel Triton does not run.
[[nodiscard]] inline std::string_view triton_kernel_of(std::string_view kernel) {
  if (kernel == "flash2_fwd") return "attn_fwd";
  if (kernel == "flash2_bwd_preprocess") return "attn_bwd_preprocess";
  if (kernel == "flash2_bwd_dkdv") return "attn_bwd_dkdv";
  if (kernel == "flash2_bwd_dq") return "attn_bwd_dq";
  return "";
}

/// The record of iosim's kernel `kernel` in `k`: the one of compiled_set compiled from its Triton
/// kernel, else `compiled` where that names no kernel or this one; nullptr where none.
[[nodiscard]] inline const CompiledKernel* compiled_record_of(const KernelRequest& k, std::string_view kernel) {
  const std::string_view triton = triton_kernel_of(kernel);
  for (const auto& r : k.compiled_set) {
    if (r && !triton.empty() && r->kernel == triton) return r.get();
  }
  if (k.compiled && (k.compiled->kernel.empty() || k.compiled->kernel == triton)) return k.compiled.get();
  return nullptr;
}

}  // namespace iosim
