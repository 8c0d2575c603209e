// L2Sweep: a grid-stride read of a buffer several times the L2 (see l2_sweep.h for why a read).
#include "cuda/runtime/l2_sweep.h"

#include <stdexcept>
#include <string>

#include "cuda/runtime/check.h"

namespace iosim::gpu {
namespace {

constexpr int kThreads = 256;
constexpr int kBlocksPerSm = 2048 / kThreads;  // a full SM of threads
constexpr std::uint32_t kFillWord = 0;         // the buffer holds zeros, so every XOR below is 0
constexpr std::uint32_t kNeverSeen = 0xA5A5A5A5u;  // ≠ 0: the conditional store never happens

/// Reads n 16-byte words with ld.global.cg (cached in L2, not L1). The XOR of everything read is
/// stored only if it equals `never`, which the caller guarantees it cannot, so the loads stay and
/// nothing is written.
__global__ void __launch_bounds__(kThreads) sweep_kernel(const uint4* __restrict__ src, std::size_t n,
                                                         std::uint32_t never, std::uint32_t* sink) {
  std::uint32_t acc = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
#pragma unroll 4
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint4 v = __ldcg(src + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == never) {
    *sink = acc;
  }
}

}  // namespace

L2Sweep::L2Sweep(int l2_multiple) {
  if (l2_multiple < 2) {
    throw std::invalid_argument("L2Sweep: the buffer must be at least 2 × L2, got " + std::to_string(l2_multiple));
  }
  int device = 0;
  int l2 = 0;
  int sms = 0;
  IOSIM_CUDA_CHECK(cudaGetDevice(&device));
  IOSIM_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  IOSIM_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  l2_bytes_ = static_cast<std::size_t>(l2);
  bytes_ = (l2_bytes_ * static_cast<std::size_t>(l2_multiple) + sizeof(uint4) - 1) / sizeof(uint4) * sizeof(uint4);
  grid_ = sms * kBlocksPerSm;

  IOSIM_CUDA_CHECK(cudaMalloc(&sink_, sizeof(std::uint32_t)));
  const cudaError_t err = cudaMalloc(&buffer_, bytes_);
  if (err != cudaSuccess) {
    (void)cudaFree(sink_);
    throw_cuda("cudaMalloc(&buffer_, bytes_)", cudaGetErrorString(err), __FILE__, __LINE__);
  }
  try {
    IOSIM_CUDA_CHECK(cudaMemset(buffer_, static_cast<int>(kFillWord), bytes_));
    sweep(nullptr);
    IOSIM_CUDA_CHECK(cudaDeviceSynchronize());
  } catch (...) {
    (void)cudaFree(buffer_);
    (void)cudaFree(sink_);
    throw;
  }
}

L2Sweep::~L2Sweep() {
  (void)cudaFree(buffer_);
  (void)cudaFree(sink_);
}

void L2Sweep::sweep(cudaStream_t stream) const {
  sweep_kernel<<<grid_, kThreads, 0, stream>>>(static_cast<const uint4*>(buffer_), bytes_ / sizeof(uint4), kNeverSeen,
                                                sink_);
  IOSIM_CUDA_CHECK_LAUNCH();
}

}  // namespace iosim::gpu
