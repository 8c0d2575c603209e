// The CUDA kernels that run a schedule, as its registry entry (registry.h) states them: the device
// tensors each pass's kernels write and the CUDA backend checks, and the properties by which the backend
// finds, sizes and launches them (cuda/backend.h's KernelSpec names the schedule; its entry says the rest).
// cuda/kernels/tensors.h derives the buffers from this and the tensor table (sim/core/tensor.h). Plain
// data, no CUDA: the kernels' .cu files include it through tensors.h.
#pragma once

#include <array>
#include <span>
#include <string_view>

#include "sim/core/tensor.h"

namespace iosim {

/// The tensors one pass's kernels write in device memory (results and intermediates), in the order
/// the buffers hold them, and the results compared with the reference. A conditional tensor of the
/// table (the split-KV partials, a grouped backward's per-query-head scratch: cuda/kernels/tensors.h) is
/// listed where the kernels may write it; the backend holds it only where it has elements.
struct CudaPassTensors {
  std::span<const Tensor> writes = {};  ///< empty: the schedule has no kernels for this pass
  std::span<const Tensor> results = {};
};

/// The inputs every pass reads (and the backward's dO besides); the block table where K/V are paged.
inline constexpr std::array kCudaFwdInputs = {Tensor::Q, Tensor::K, Tensor::V};
inline constexpr std::array kCudaBwdInputs = {Tensor::Q, Tensor::K, Tensor::V, Tensor::dO};

/// The results of a forward (O) and of a backward (dQ, dK, dV), the usual ones.
inline constexpr std::array kCudaFwdResults = {Tensor::O};
inline constexpr std::array kCudaBwdResults = {Tensor::dQ, Tensor::dK, Tensor::dV};

struct CudaKernels {
  CudaPassTensors fwd;
  CudaPassTensors bwd;
  /// cuBLAS's matrix products and a softmax kernel (cuda/kernels/naive.cu): no compiled tiles, no entry in
  /// the kernel registry (cuBLAS picks its own tiles); the backend prepares cuBLAS with the buffers.
  bool library = false;
  /// Split-KV decoding (forward only): K/V splits (KernelSpec::splits), partials and a combine kernel
  /// (cuda/kernels/flashdecode.cuh, decode_plan.h).
  bool decode = false;
  /// With decode: a K/V group's query heads packed as one block's rows; otherwise one block row set per
  /// query head.
  bool packed_heads = false;
  /// sm_90a kernels whose loads are TMA's (cuda/kernels/flash3/): their own registry, compute capability
  /// 9.0 only, pages of at least one TMA box, L2 reads counted at the L1 side.
  bool hopper_tma = false;
  /// Its forward takes paged K/V (KernelSpec::page_size, an int32 block table).
  bool paged_fwd = false;
};

/// The CUDA kernels of the registry entry named `schedule`, or nullptr where none of that name has any
/// (registry.cpp).
[[nodiscard]] const CudaKernels* cuda_kernels(std::string_view schedule);

}  // namespace iosim
