// The CUDA kernels that run a schedule, as its registry entry (registry.h) states them: which kernels
// (CudaAlgo, cuda/backend.h's KernelSpec::algo) and the device tensors each pass's kernels write and
// the CUDA backend checks. cuda/kernels/tensors.h derives the buffers from this and the tensor table
// (sim/core/tensor.h). Plain data, no CUDA: the kernels' .cu files include it through tensors.h.
#pragma once

#include <array>
#include <span>

#include "sim/core/tensor.h"
#include "sim/schedule/cuda_algo.h"

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
  CudaAlgo algo = CudaAlgo::naive;
  CudaPassTensors fwd;
  CudaPassTensors bwd;
};

/// The CUDA kernels of the registry entry that names `a`, or nullptr where none does (registry.cpp).
[[nodiscard]] const CudaKernels* cuda_kernels(CudaAlgo a);

}  // namespace iosim
