// The device tensors FlashAttention-2's CUDA kernels write (cuda_kernels.h): flash2's, and flash3's,
// whose kernels move flash2's traffic. Forward: O and the row logsumexp L. Backward: D = rowsum(dO ∘ O),
// the fp32 dQ accumulator, the gradients, and with grouped K/V heads dK, dV per query head first.
#pragma once

#include <array>

#include "sim/core/tensor.h"

namespace iosim::detail {

inline constexpr std::array kFlash2CudaFwdWrites = {Tensor::O, Tensor::L};
inline constexpr std::array kFlash2CudaBwdWrites = {Tensor::D,  Tensor::dQacc, Tensor::dQ,   Tensor::dK,
                                                    Tensor::dV, Tensor::dKexp, Tensor::dVexp};

}  // namespace iosim::detail
