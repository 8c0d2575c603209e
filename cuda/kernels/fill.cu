// fill_normal: N(0, 1) by Box-Muller on a splitmix64 hash of (seed, index); one pass of 2-byte
// stores (grid-stride). Not part of any schedule: AttentionBuffers::fill_inputs calls it.
#include "cuda/kernels/fill.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>

#include "cuda/runtime/check.h"

namespace iosim::gpu::kern {
namespace {

constexpr int kThreads = 256;
constexpr std::uint64_t kMaxBlocks = 4096;

__device__ std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

template <class T>
__global__ void __launch_bounds__(kThreads) fill_normal_kernel(T* dst, std::uint64_t count, std::uint64_t seed) {
  constexpr float kInv24 = 1.f / 16777216.f;  // 2^-24
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    const std::uint64_t h = splitmix64(seed ^ splitmix64(i));
    const float u1 = (static_cast<float>(h >> 40) + 0.5f) * kInv24;              // (0, 1)
    const float u2 = (static_cast<float>((h >> 8) & 0xFFFFFFull) + 0.5f) * kInv24;  // (0, 1)
    dst[i] = static_cast<T>(sqrtf(-2.f * logf(u1)) * cospif(2.f * u2));
  }
}

}  // namespace
}  // namespace iosim::gpu::kern

namespace iosim::gpu::detail {

void fill_normal(void* dst, std::uint64_t count, DType dtype, std::uint64_t seed, cudaStream_t stream) {
  if (count == 0) return;
  const auto blocks = static_cast<unsigned>(
      std::clamp<std::uint64_t>((count + kern::kThreads - 1) / kern::kThreads, 1, kern::kMaxBlocks));
  if (dtype == DType::fp16) {
    kern::fill_normal_kernel<<<blocks, kern::kThreads, 0, stream>>>(static_cast<__half*>(dst), count, seed);
  } else {
    kern::fill_normal_kernel<<<blocks, kern::kThreads, 0, stream>>>(static_cast<__nv_bfloat16*>(dst), count, seed);
  }
  IOSIM_CUDA_CHECK_LAUNCH();
}

}  // namespace iosim::gpu::detail
