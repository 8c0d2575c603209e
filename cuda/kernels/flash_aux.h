// The small element-wise kernels around the flash schedules (cuda/kernels/flash_aux.cu): flash1's
// initialisations, flash2 backward's preprocess and convert, and the backwards' sum of dK, dV over a
// group of query heads. Each enqueues one kernel on `stream`.
#pragma once

#include <cuda_runtime.h>

#include "cuda/kernels/launch.h"

namespace iosim::gpu::detail {

/// flash1 forward, kernel A: O = 0 (element type), l = 0, m = −inf (fp32).
void launch_flash1_fwd_init(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream);

/// flash1 backward, kernel A: dQ = dK = dV = 0 (element type).
void launch_flash1_bwd_init(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream);

/// flash2 backward, kernel A: D = rowsum(dO ∘ O) (fp32, [batch·heads, n]) and dQacc = 0 (fp32).
void launch_flash2_bwd_preprocess(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream);

/// flash2 backward, kernel C: dQ = dQacc rounded to the element type.
void launch_flash2_bwd_convert(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream);

/// flash1 and flash2 backward with grouped K/V heads, last: dK, dV = the per-query-head gradients
/// (AttentionBuffers::grad_per_query_head) summed over each group. Nothing when group = 1.
void launch_group_sum_kv_grads(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream);

}  // namespace iosim::gpu::detail
