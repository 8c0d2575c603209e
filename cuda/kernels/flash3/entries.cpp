// flash3_registry(), the launcher that maps a KernelSpec's buffers to flash3's FwdArgs, and flash3's
// refusals (entries.h). The kernels are cuda/kernels/flash3/'s; IOSIM_FLASH3 is defined where
// flash3.cmake built them (sm_90a and CUTLASS's headers found).
#include "cuda/kernels/flash3/entries.h"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <string_view>

#include "cuda/kernels/flash3/flash3_bwd.h"
#include "cuda/kernels/flash3/flash3_fwd.h"
#include "cuda/kernels/launch.h"
#include "cuda/kernels/tensors.h"
#include "cuda/window_paging.h"
#include "cuda/runtime/check.h"

namespace iosim::gpu::detail {

static_assert(flash3::kPageBox == kFlash3MinPage, "the page size window_paging_unsupported admits is the box's");

namespace {

#ifdef IOSIM_FLASH3
/// The schedule whose kernels these are, by its registry name (sim/schedule/flash3/register.cpp), as the
/// kernel menu's schedule column names the rest.
constexpr std::string_view kSchedule = "flash3";

/// "fp16 d=128, bf16 d=64" of the registry, "none" when empty.
[[nodiscard]] std::string compiled_text() {
  std::string out;
  for (const KernelEntry& e : flash3_registry()) {
    out += (out.empty() ? "" : ", ") + std::string(e.pass == Direction::fwd ? "fwd " : "bwd ") +
           std::string(name(e.dtype)) + " d=" + std::to_string(e.d);
  }
  return out.empty() ? "none" : out;
}

[[nodiscard]] flash3::DType flash3_type(DType t) { return t == DType::bf16 ? flash3::DType::bf16 : flash3::DType::fp16; }

/// The arguments both passes share: Q, K, V, O and the shape, heads as batch × heads.
template <class Args>
void set_common(Args& a, const KernelSpec& spec, AttentionBuffers& buf) {
  a.q = buf.device(Tensor::Q);
  a.k = buf.device(Tensor::K);
  a.v = buf.device(Tensor::V);
  a.o = buf.device(Tensor::O);
  a.heads = spec.batch * spec.heads;
  a.kv_heads = spec.batch * kv_head_count(spec);
  a.n = spec.n;
  a.n_kv = spec.n_kv;
  a.causal = spec.causal;
  a.window = spec.causal ? spec.window : 0;
}

/// Enqueues the flash3 forward of `spec` on `stream`: Q, K, V, O and L as flash2's forward has them
/// ([batch · heads, rows, d], K/V by batch · kv_heads, or paged K/V caches and their block table), so
/// FwdArgs' heads are batch × heads.
void launch_flash3_fwd(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream) {
  const KernelEntry* e = find_kernel(spec);  // its stages where the spec leaves them at 0
  const flash3::FwdKernel* k =
      e == nullptr ? nullptr : flash3::find_fwd(flash3_type(spec.dtype), spec.d, spec.br, spec.bc, e->stages, true);
  if (k == nullptr) throw std::invalid_argument("launch: " + spec_text(spec) + ": no such flash3 kernel in this build");
  flash3::FwdArgs a;
  set_common(a, spec, buf);
  a.lse = static_cast<float*>(buf.device(Tensor::L));
  if (spec.page_size > 0) {  // paged K/V: window_paging_unsupported admitted the page size
    a.block_table = static_cast<const int*>(buf.device(Tensor::BT));
    a.page_size = spec.page_size;
    a.pages = static_cast<int>(kv_pages(spec));
  }
  IOSIM_CUDA_CHECK(k->launch(a, stream));
}

/// Enqueues the flash3 backward of `spec` (preprocess, main kernel, dQ conversion, and with grouped K/V
/// heads the group sum): Q, K, V, O, dO, L as the forward left them (prepare_backward), D, dQacc and
/// dKexp, dVexp the buffers flash2's backward uses.
void launch_flash3_bwd(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream) {
  const KernelEntry* e = find_kernel(spec);
  const flash3::BwdKernel* k =
      e == nullptr ? nullptr : flash3::find_bwd(flash3_type(spec.dtype), spec.d, spec.br, spec.bc, e->stages);
  if (k == nullptr) throw std::invalid_argument("launch: " + spec_text(spec) + ": no such flash3 kernel in this build");
  flash3::BwdArgs a;
  set_common(a, spec, buf);
  a.dout = buf.device(Tensor::dO);
  a.lse = static_cast<const float*>(buf.device(Tensor::L));
  a.dsum = static_cast<float*>(buf.device(Tensor::D));
  a.dq_acc = static_cast<float*>(buf.device(Tensor::dQacc));
  a.dq = buf.device(Tensor::dQ);
  a.dk = buf.device(Tensor::dK);
  a.dv = buf.device(Tensor::dV);
  a.dk_exp = buf.grad_per_query_head(Tensor::dK);
  a.dv_exp = buf.grad_per_query_head(Tensor::dV);
  IOSIM_CUDA_CHECK(k->launch(a, stream));
}
#endif

}  // namespace

const std::vector<KernelEntry>& flash3_registry() {
  static const std::vector<KernelEntry> entries = [] {
    std::vector<KernelEntry> out;
#ifdef IOSIM_FLASH3
    for (const flash3::FwdKernel& k : flash3::fwd_kernels()) {
      if (!k.overlap) continue;
      out.push_back(KernelEntry{kSchedule, Direction::fwd, k.d,
                                k.dtype == flash3::DType::bf16 ? DType::bf16 : DType::fp16, k.br, k.bc,
                                static_cast<std::size_t>(k.smem_bytes), &launch_flash3_fwd, k.threads / 32, k.stages});
    }
    for (const flash3::BwdKernel& k : flash3::bwd_kernels()) {
      out.push_back(KernelEntry{kSchedule, Direction::bwd, k.d,
                                k.dtype == flash3::DType::bf16 ? DType::bf16 : DType::fp16, k.br, k.bc,
                                static_cast<std::size_t>(k.smem_bytes), &launch_flash3_bwd, k.threads / 32, k.stages});
    }
#endif
    return out;
  }();
  return entries;
}

std::string flash3_unsupported_in_build(const KernelSpec& s) {
  if (!described(s).hopper_tma) return "";
#ifndef IOSIM_FLASH3
  return "flash3: this build has no flash3 kernels (they need nvcc 12.0 or newer and CUTLASS's headers; cmake's "
         "configure says which was missing)";
#else
  const KernelEntry* first = nullptr;
  for (const KernelEntry& e : flash3_registry()) {
    if (e.pass == s.pass && e.d == s.d && e.dtype == s.dtype) {
      first = &e;
      break;
    }
  }
  if (first == nullptr) {
    return spec_text(s) + ": no flash3 kernel of this pass, type and head dimension in this build (compiled: " +
           compiled_text() + "; -DIOSIM_CUDA_FULL_TILES=ON adds fp16/bf16 x d = 64/128)";
  }
  if (s.br == 0 && s.bc == 0) return "";
  if (s.br != first->br || s.bc != first->bc || (s.warps != 0 && s.warps != first->warps) ||
      (s.stages != 0 && s.stages != first->stages)) {
    return spec_text(s) + ": the flash3 kernel has one tile, " + std::to_string(first->br) + "x" +
           std::to_string(first->bc) + " with " + std::to_string(first->warps) + " warps (a producer and " +
           std::to_string(first->warps / 4 - 1) + " consumer warpgroups) and " + std::to_string(first->stages) +
           (s.pass == Direction::fwd ? " K/V stages" : " Q/dO stages") + "; asked for " + std::to_string(s.br) + "x" + std::to_string(s.bc) +
           (s.warps != 0 ? " with " + std::to_string(s.warps) + " warps" : "") +
           (s.stages != 0 ? ", " + std::to_string(s.stages) + " stages" : "");
  }
  return "";
#endif
}

std::string flash3_unsupported_on(const DeviceInfo& dev) {
  if (runs_sm90a(dev)) return "";
  return "flash3 needs a Hopper GPU (sm_90a: TMA and wgmma, compute capability 9.0); " + dev.name + " is " +
         std::to_string(dev.cc_major) + "." + std::to_string(dev.cc_minor);
}

}  // namespace iosim::gpu::detail
