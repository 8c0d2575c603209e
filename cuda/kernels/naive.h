// naive (standard attention, Algorithm 0 and its backward): cuBLAS GEMMs around row kernels.
// Implemented in cuda/kernels/naive.cu.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/kernels/launch.h"

namespace iosim::gpu::detail {

/// Creates the process's cuBLAS handle and its workspace if they do not exist yet. Allocates, so it
/// is called when a naive AttentionBuffers is built, never from launch().
void naive_prepare();

/// S = scale·Q Kᵀ (cuBLAS); P = softmax(S) (row kernel); O = P V (cuBLAS).
void naive_forward(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream);

/// dV = Pᵀ dO; dP = dO Vᵀ; dS = P ∘ (dP − rowsum(P ∘ dP)) (row kernel); dQ = scale·dS K; dK = scale·dSᵀ Q.
void naive_backward(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream);

/// Whether the row kernels of `spec` read their rows once (true) or twice (false, rows larger than
/// the shared memory one block may use, `smem_optin` bytes).
[[nodiscard]] bool naive_softmax_one_pass(const KernelSpec& spec, std::uint64_t smem_optin);
[[nodiscard]] bool naive_dsoftmax_one_pass(const KernelSpec& spec, std::uint64_t smem_optin);

}  // namespace iosim::gpu::detail
