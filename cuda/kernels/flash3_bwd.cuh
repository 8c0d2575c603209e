// The kernel menu's descriptor of flash3's backward (flash3_bwd in cuda/kernels/menu.csv, arch sm90a):
// the kernels of cuda/kernels/flash3/flash3_bwd.cuh as a registry entry. Its launcher maps a KernelSpec's
// buffers to flash3's BwdArgs; native() is flash3's own descriptor (flash3::BwdKernel, with the main
// kernel alone for flash3_check's timing). Compiled for sm_90a only (flash3.cmake).
#pragma once

#include "cuda/kernels/flash3/flash3_bwd.cuh"
#include "cuda/kernels/flash3_fwd.cuh"

namespace iosim::gpu::detail {

struct Flash3BwdKernel {
  static constexpr Direction kPass = Direction::bwd;
  template <int D, int BR, int BC, int WARPS, int STAGES>
  static constexpr bool accepts() {
    if constexpr ((D == 64 || D == 128) && (BR == 64 || BR == 128)) {
      return WARPS * 32 == flash3::detail::BwdTraits<cutlass::half_t, D, BR, BC, STAGES>::kThreads;
    } else {
      return false;
    }
  }
  template <int D, int BR, int BC, int WARPS, int STAGES>
  struct Traits {
    static constexpr int kD = D, kBr = BR, kBc = BC, kStages = STAGES;
    static constexpr std::size_t kSmemBytes = flash3::detail::BwdTraits<cutlass::half_t, D, BR, BC, STAGES>::kSmemBytes;
  };
  template <class T, class Tr>
  static const flash3::BwdKernel* native() {
    static const flash3::BwdKernel k =
        flash3::bwd_kernel_entry<Flash3Element<T>, kFlash3Type<T>, Tr::kD, Tr::kBr, Tr::kBc, Tr::kStages>();
    return &k;
  }
  /// Enqueues the backward of `spec` (preprocess, main kernel, dQ conversion, and with grouped K/V heads
  /// the group sum): Q, K, V, O, dO, L as the forward left them (prepare_backward), D, dQacc and dKexp,
  /// dVexp the buffers flash2's backward uses.
  template <class T, class Tr>
  static void launch(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream) {
    flash3::BwdArgs a;
    flash3_set_common(a, spec, buf);
    a.dout = buf.device(Tensor::dO);
    a.lse = static_cast<const float*>(buf.device(Tensor::L));
    a.dsum = static_cast<float*>(buf.device(Tensor::D));
    a.dq_acc = static_cast<float*>(buf.device(Tensor::dQacc));
    a.dq = buf.device(Tensor::dQ);
    a.dk = buf.device(Tensor::dK);
    a.dv = buf.device(Tensor::dV);
    a.dk_exp = buf.grad_per_query_head(Tensor::dK);
    a.dv_exp = buf.grad_per_query_head(Tensor::dV);
    const flash3::BwdKernel* k = native<T, Tr>();
    IOSIM_CUDA_CHECK(k->launch(a, stream));
  }
};

}  // namespace iosim::gpu::detail
