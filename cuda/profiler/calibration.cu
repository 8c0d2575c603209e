// Calibration kernels with known counter values (calibration.h says what each should count).
#include "cuda/profiler/calibration.h"

#include <stdexcept>
#include <string>

#include "cuda/runtime/check.h"

namespace iosim::gpu::calibration {
namespace {

constexpr int kCopyThreads = 256;
constexpr int kWarp = 32;
constexpr std::uint32_t kNeverWord = 0xFFFFFFFFu;  // shared probe: v stays below 2^31
constexpr float kNeverFloat = -1.0f;               // mma probe: accumulators only grow from 0

__global__ void __launch_bounds__(kCopyThreads) copy_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst,
                                                            std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    dst[i] = src[i];
  }
}

/// Per iteration: one STS.32 of 32 consecutive words per warp, one LDS.32 of a permutation of
/// them (lane ^ 1). volatile keeps both accesses in every iteration; __syncwarp orders them
/// between lanes.
__global__ void shared_kernel(int iterations, std::uint32_t never, std::uint32_t* sink) {
  extern __shared__ std::uint32_t words[];
  volatile std::uint32_t* w = words;
  const unsigned t = threadIdx.x;
  std::uint32_t v = t;
  for (int i = 0; i < iterations; ++i) {
    w[t] = v;
    __syncwarp();
    v = w[t ^ 1u] + 1u;
    __syncwarp();
  }
  if (v == never) {
    *sink = v;
  }
}

/// Per iteration one mma.sync m16n8k16 with fp32 accumulators; the fragments hold 1.0 in every
/// element (packed pairs), so d grows by 16 per step and never reaches `never`.
template <bool kBf16>
__global__ void mma_kernel(int iterations, float never, float* sink) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr std::uint32_t kOnes = kBf16 ? 0x3F803F80u : 0x3C003C00u;  // two 1.0 in bf16 / fp16
  const std::uint32_t a0 = kOnes, a1 = kOnes, a2 = kOnes, a3 = kOnes, b0 = kOnes, b1 = kOnes;
  float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
  for (int i = 0; i < iterations; ++i) {
    if constexpr (kBf16) {
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
          "{%0,%1,%2,%3};\n"
          : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
          : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    } else {
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
          "{%0,%1,%2,%3};\n"
          : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
          : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    }
  }
  if (d0 + d1 + d2 + d3 == never) {
    *sink = d0;
  }
#else
  (void)iterations;
  (void)never;
  (void)sink;
  __trap();  // mma.sync m16n8k16 needs sm_80 or newer
#endif
}

__global__ void red_kernel(float* dst, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(dst + i * kRedStrideFloats, 1.0f);  // result unused: RED.E.ADD.F32
  }
}

/// ReadProbe's kernel: thread t of the block loads 16-byte chunk i of src for i = first + t,
/// first + t + step, …; chunk 0 of a block starts at blockIdx.x × 256 unless every block reads all.
/// cp_async_padded puts chunk t at byte 144·(t / 8) + 16·(t % 8) of shared memory: rows of eight
/// chunks (128 bytes, one line of the source) padded by 16 bytes.
template <LoadPath kPath>
__global__ void __launch_bounds__(kCopyThreads) read_kernel(const uint4* __restrict__ src, std::size_t n,
                                                            bool every_block_reads_all, std::uint32_t* sink) {
  constexpr int kRowChunks = 8, kPaddedRowChunks = 9;
  __shared__ __align__(128) uint4 slot[kCopyThreads / kRowChunks * kPaddedRowChunks];
  const unsigned t = threadIdx.x;
  const unsigned at = kPath == LoadPath::cp_async_padded ? t / kRowChunks * kPaddedRowChunks + t % kRowChunks : t;
  const std::size_t first = every_block_reads_all ? t : static_cast<std::size_t>(blockIdx.x) * blockDim.x + t;
  const std::size_t step = every_block_reads_all ? blockDim.x : static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::uint32_t acc = 0;
  for (std::size_t i = first; i < n; i += step) {
    if constexpr (kPath == LoadPath::ldg) {
      const uint4 v = __ldcg(src + i);
      acc ^= v.x ^ v.y ^ v.z ^ v.w;
    } else {
      const auto dst = static_cast<std::uint32_t>(__cvta_generic_to_shared(&slot[at]));
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src + i) : "memory");
      asm volatile("cp.async.commit_group;\n" ::: "memory");
      asm volatile("cp.async.wait_group 0;\n" ::: "memory");
      acc ^= slot[at].x;
    }
  }
  if (acc == kNeverWord) *sink = acc;
}

unsigned grid_for(std::size_t items, int threads) {
  return static_cast<unsigned>((items + static_cast<std::size_t>(threads) - 1) / static_cast<std::size_t>(threads));
}

void check_warps(int blocks, int warps_per_block, int iterations, const char* what) {
  if (blocks <= 0 || warps_per_block <= 0 || warps_per_block > 32 || iterations < 0) {
    throw std::invalid_argument(std::string(what) + ": need blocks > 0, 1 <= warps_per_block <= 32, iterations >= 0");
  }
}

}  // namespace

void copy(const void* src, void* dst, std::size_t bytes, cudaStream_t stream) {
  if (bytes % sizeof(uint4) != 0) {
    throw std::invalid_argument("calibration::copy: bytes must be a multiple of 16, got " + std::to_string(bytes));
  }
  const std::size_t n = bytes / sizeof(uint4);
  if (n == 0) {
    return;
  }
  int device = 0;
  int sms = 0;
  IOSIM_CUDA_CHECK(cudaGetDevice(&device));
  IOSIM_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const unsigned full = static_cast<unsigned>(sms) * (2048u / kCopyThreads);
  const unsigned needed = grid_for(n, kCopyThreads);
  copy_kernel<<<needed < full ? needed : full, kCopyThreads, 0, stream>>>(static_cast<const uint4*>(src),
                                                                          static_cast<uint4*>(dst), n);
  IOSIM_CUDA_CHECK_LAUNCH();
}

void shared_ld_st(const SharedProbe& probe, std::uint32_t* sink, cudaStream_t stream) {
  check_warps(probe.blocks, probe.warps_per_block, probe.iterations, "calibration::shared_ld_st");
  const int threads = probe.warps_per_block * kWarp;
  const std::size_t smem = static_cast<std::size_t>(threads) * sizeof(std::uint32_t);
  shared_kernel<<<static_cast<unsigned>(probe.blocks), static_cast<unsigned>(threads), smem, stream>>>(
      probe.iterations, kNeverWord, sink);
  IOSIM_CUDA_CHECK_LAUNCH();
}

void mma(const MmaProbe& probe, float* sink, cudaStream_t stream) {
  check_warps(probe.blocks, probe.warps_per_block, probe.iterations, "calibration::mma");
  const dim3 grid(static_cast<unsigned>(probe.blocks));
  const dim3 block(static_cast<unsigned>(probe.warps_per_block * kWarp));
  switch (probe.dtype) {
    case DType::fp16:
      mma_kernel<false><<<grid, block, 0, stream>>>(probe.iterations, kNeverFloat, sink);
      break;
    case DType::bf16:
      mma_kernel<true><<<grid, block, 0, stream>>>(probe.iterations, kNeverFloat, sink);
      break;
    default:
      throw std::invalid_argument("calibration::mma: fp16 or bf16 only");
  }
  IOSIM_CUDA_CHECK_LAUNCH();
}

void read(const ReadProbe& probe, const void* src, std::uint32_t* sink, cudaStream_t stream) {
  if (probe.bytes % sizeof(uint4) != 0 || probe.blocks <= 0) {
    throw std::invalid_argument("calibration::read: bytes must be a multiple of 16 and blocks > 0");
  }
  const std::size_t n = probe.bytes / sizeof(uint4);
  const auto* s = static_cast<const uint4*>(src);
  const auto grid = static_cast<unsigned>(probe.blocks);
  const bool all = probe.every_block_reads_all;
  switch (probe.path) {
    case LoadPath::ldg: read_kernel<LoadPath::ldg><<<grid, kCopyThreads, 0, stream>>>(s, n, all, sink); break;
    case LoadPath::cp_async: read_kernel<LoadPath::cp_async><<<grid, kCopyThreads, 0, stream>>>(s, n, all, sink); break;
    case LoadPath::cp_async_padded:
      read_kernel<LoadPath::cp_async_padded><<<grid, kCopyThreads, 0, stream>>>(s, n, all, sink);
      break;
  }
  IOSIM_CUDA_CHECK_LAUNCH();
}

void red_add(float* dst, std::size_t n, cudaStream_t stream) {
  if (n == 0) {
    return;
  }
  red_kernel<<<grid_for(n, kCopyThreads), kCopyThreads, 0, stream>>>(dst, n);
  IOSIM_CUDA_CHECK_LAUNCH();
}

}  // namespace iosim::gpu::calibration
