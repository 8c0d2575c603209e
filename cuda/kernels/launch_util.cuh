// Host-side helpers the kernel launchers share: typed device pointers of a buffer set, the dynamic
// shared-memory opt-in, and the element type of a DType.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "cuda/kernels/launch.h"
#include "cuda/runtime/check.h"

namespace iosim::gpu::detail {

template <class T>
[[nodiscard]] T* device_ptr(const AttentionBuffers& buf, Tensor t) {
  return static_cast<T*>(buf.device(t));
}

/// Lets `kernel` take `bytes` of dynamic shared memory (needed above 48 KiB; harmless below).
template <class Kernel>
void allow_dynamic_smem(Kernel* kernel, std::size_t bytes) {
  IOSIM_CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
}

template <class T>
inline constexpr DType kDTypeOf = std::is_same_v<T, __half> ? DType::fp16 : DType::bf16;

/// Rows of all heads: batch · heads · rows.
[[nodiscard]] inline std::int64_t head_rows(const KernelSpec& s, int rows) {
  return static_cast<std::int64_t>(s.batch) * s.heads * rows;
}

}  // namespace iosim::gpu::detail
