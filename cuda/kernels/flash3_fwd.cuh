// The kernel menu's descriptors of flash3's forward (cuda/kernels/menu.csv, arch sm90a): the kernel of
// cuda/kernels/flash3/flash3_fwd.cuh as a registry entry. Its launcher maps a KernelSpec's buffers to
// flash3's FwdArgs; native() is flash3's own descriptor of the same instantiation (flash3::FwdKernel),
// which flash3_check launches on its own buffers. Compiled for sm_90a only (flash3.cmake).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <type_traits>

#include "cuda/kernels/flash3/flash3_fwd.cuh"
#include "cuda/kernels/launch.h"
#include "cuda/kernels/launch_util.cuh"
#include "cuda/kernels/tensors.h"
#include "cuda/runtime/check.h"

namespace iosim::gpu::detail {

/// CUTLASS's element type and flash3's type tag of a menu row's T (__half or __nv_bfloat16).
template <class T>
using Flash3Element = std::conditional_t<std::is_same_v<T, __half>, cutlass::half_t, cutlass::bfloat16_t>;
template <class T>
inline constexpr flash3::DType kFlash3Type = std::is_same_v<T, __half> ? flash3::DType::fp16 : flash3::DType::bf16;

/// The arguments both passes share: Q, K, V, O and the shape, heads as batch × heads.
template <class Args>
void flash3_set_common(Args& a, const KernelSpec& spec, AttentionBuffers& buf) {
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

/// OVERLAP: FA3's ping-pong and intra-warpgroup overlap (flash3_fwd, dispatched); false: the plain order
/// (flash3_fwd_plain, flash3_check's comparison only: the backend never launches it).
template <bool OVERLAP>
struct Flash3FwdDescriptor {
  static constexpr Direction kPass = Direction::fwd;
  static constexpr bool kDispatched = OVERLAP;
  template <int D, int BR, int BC, int WARPS, int STAGES>
  static constexpr bool accepts() {
    if constexpr (D == 64 || D == 128) {
      return WARPS * 32 == flash3::detail::FwdTraits<cutlass::half_t, D, BR, BC, STAGES, OVERLAP>::kThreads;
    } else {
      return false;
    }
  }
  /// The row's tile; shared memory is the same for fp16 and bf16 (2-byte elements).
  template <int D, int BR, int BC, int WARPS, int STAGES>
  struct Traits {
    static constexpr int kD = D, kBr = BR, kBc = BC, kStages = STAGES;
    static constexpr std::size_t kSmemBytes =
        flash3::detail::FwdTraits<cutlass::half_t, D, BR, BC, STAGES, OVERLAP>::kSmemBytes;
  };
  template <class T, class Tr>
  static const flash3::FwdKernel* native() {
    static const flash3::FwdKernel k =
        flash3::fwd_kernel_entry<Flash3Element<T>, kFlash3Type<T>, Tr::kD, OVERLAP, Tr::kBr, Tr::kBc, Tr::kStages>();
    return &k;
  }
  /// Enqueues the forward of `spec` on `stream`: Q, K, V, O and L as flash2's forward has them
  /// ([batch · heads, rows, d], K/V by batch · kv_heads, or paged K/V caches and their block table).
  template <class T, class Tr>
  static void launch(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream) {
    flash3::FwdArgs a;
    flash3_set_common(a, spec, buf);
    a.lse = static_cast<float*>(buf.device(Tensor::L));
    if (spec.page_size > 0) {  // paged K/V: window_paging_unsupported admitted the page size
      a.block_table = static_cast<const int*>(buf.device(Tensor::BT));
      a.page_size = spec.page_size;
      a.pages = static_cast<int>(kv_pages(spec));
    }
    const flash3::FwdKernel* k = native<T, Tr>();
    IOSIM_CUDA_CHECK(k->launch(a, stream));
  }
};

using Flash3FwdKernel = Flash3FwdDescriptor<true>;

}  // namespace iosim::gpu::detail
