// Device-side random inputs: N(0, 1) values from a counter-based hash of (seed, index), so that a
// tensor's values depend only on the seed and the element's index (not on the launch or the GPU).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "sim/core/dtype.h"

namespace iosim::gpu::detail {

/// Writes `count` N(0, 1) values, rounded to `dtype` (fp16 or bf16), to `dst`, on `stream`.
void fill_normal(void* dst, std::uint64_t count, DType dtype, std::uint64_t seed, cudaStream_t stream);

}  // namespace iosim::gpu::detail
