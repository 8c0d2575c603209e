// iosim calibrate: the rate each resource of the time model reaches on this GPU, measured with one
// small kernel per resource written with the instructions iosim's kernels use (cuda/kernels):
//
//   HBM     16-byte streaming loads and stores (4 in flight per thread) copying 1 GiB
//                                                            (bytes read + written) / time
//   L2      16-byte ld.global.cg over a quarter of the L2    bytes loaded / time   (the L1 bypassed)
//   SRAM    ld.shared.v4, conflict-free                      bytes loaded / time
//   tensor  mma.sync m16n8k16, fp32 accumulate, 4 independent accumulators per warp
//   exp     ex2.approx.ftz.f32 (the MUFU.EX2 of fast_exp2), 8 independent chains per thread
//   L2 red  fp32 atomicAdd with the result unused (RED.E.ADD.F32), 32 consecutive floats per warp
//           instruction over an L2-resident buffer, as the backward kernels accumulate dQ
//                                                            bytes added / time
//   GEMM    cuBLAS, 8192³ fp16 with fp32 accumulate (wgmma on Hopper): what a library reaches, for
//           reference; iosim's flash kernels use mma.sync, whose rate the model takes
//
// Each is timed with CUDA events, the median of kRuns launches after a warm-up, and each kernel runs
// long enough (tens of ms) that the launch costs nothing. No counter is needed, so no profiling rights.
// The latencies of the SM model (the config's `pipeline:` keys) come from measure_pipeline()
// (pipeline.cpp, latency_*.cu, clock_launch.cu).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/backend.h"
#include "cuda/ceilings/latency.h"
#include "cuda/kernels/fill.h"
#include "cuda/runtime/check.h"

namespace iosim::gpu {
namespace {

constexpr int kRuns = 7;
constexpr int kThreads = 256;

/// dst ← src with four independent 16-byte loads in flight per thread before their stores: enough
/// bytes in flight per SM to cover the DRAM latency.
__global__ void __launch_bounds__(kThreads) copy4_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst,
                                                        std::size_t n) {
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += 4 * threads) {
    uint4 v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      if (i + k * threads < n) v[k] = __ldcs(src + i + k * threads);
    }
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      if (i + k * threads < n) __stcs(dst + i + k * threads, v[k]);
    }
  }
}

__global__ void __launch_bounds__(kThreads) l2_read_kernel(const uint4* __restrict__ src, std::size_t n, int reps,
                                                          std::uint32_t* sink) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::uint32_t acc = 0;
  for (int r = 0; r < reps; ++r) {
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
      const uint4 v = __ldcg(src + i);
      acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
  }
  if (acc == 0xDEADBEEFu) *sink = acc;  // the buffer is zero: never taken, but the loads stay
}

/// Every thread adds 1 to each float of its stride, `reps` times: a warp instruction covers 32
/// consecutive floats (four 32-byte sectors), as flash2_bwd_kernel's dQ accumulation does.
__global__ void __launch_bounds__(kThreads) l2_red_kernel(float* dst, std::size_t n, int reps) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (int r = 0; r < reps; ++r) {
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
      atomicAdd(dst + i, 1.0f);
    }
  }
}

/// Each thread loads 16 bytes per step; the 8 threads of a quarter warp cover 128 consecutive bytes,
/// one wavefront, so the warp's load is four conflict-free wavefronts.
__global__ void __launch_bounds__(kThreads) smem_read_kernel(int iterations, std::uint32_t* sink) {
  constexpr int kWords = 4 * 1024;  // 16 KiB
  __shared__ __align__(16) std::uint32_t words[kWords];
  for (int i = threadIdx.x; i < kWords; i += blockDim.x) words[i] = static_cast<std::uint32_t>(i);
  __syncthreads();
  const std::uint32_t base = static_cast<std::uint32_t>(__cvta_generic_to_shared(words));
  std::uint32_t acc = 0;
  for (int it = 0; it < iterations; ++it) {
#pragma unroll
    for (int u = 0; u < 8; ++u) {
      // The address moves with the iteration and the load is volatile: ptxas may neither hoist it out
      // of the loop nor merge it with the last iteration's.
      const std::uint32_t slot =
          (threadIdx.x + static_cast<unsigned>(u) * kThreads + static_cast<unsigned>(it) * 32u) % (kWords / 4);
      std::uint32_t a, b, c, d;
      asm volatile("ld.volatile.shared.v4.u32 {%0,%1,%2,%3}, [%4];"
                   : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
                   : "r"(base + slot * 16u));
      acc += a ^ b ^ c ^ d;
    }
  }
  if (acc == 0xDEADBEEFu) *sink = acc;
}

template <bool kBf16>
__global__ void __launch_bounds__(kThreads) mma_kernel(int iterations, float* sink) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr std::uint32_t kSmall = kBf16 ? 0x24002400u : 0x14001400u;  // tiny values: no overflow
  const std::uint32_t a = kSmall, b = kSmall;
  float d[4][4] = {};
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      if constexpr (kBf16) {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%4,%4,%4}, {%5,%5}, "
            "{%0,%1,%2,%3};"
            : "+f"(d[k][0]), "+f"(d[k][1]), "+f"(d[k][2]), "+f"(d[k][3])
            : "r"(a), "r"(b));
      } else {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%4,%4,%4}, {%5,%5}, "
            "{%0,%1,%2,%3};"
            : "+f"(d[k][0]), "+f"(d[k][1]), "+f"(d[k][2]), "+f"(d[k][3])
            : "r"(a), "r"(b));
      }
    }
  }
  float s = 0;
  for (int k = 0; k < 4; ++k) s += d[k][0] + d[k][1] + d[k][2] + d[k][3];
  if (s < 0) *sink = s;  // products of positive numbers: never taken
#else
  (void)iterations;
  (void)sink;
  __trap();
#endif
}

__global__ void __launch_bounds__(kThreads) exp2_kernel(int iterations, float* sink) {
  float x[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) x[k] = -0.001f * static_cast<float>(threadIdx.x + k);
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      float y;
      asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(-x[k]));  // stays in (0, 1]
      x[k] = y;
    }
  }
  float s = 0;
  for (float v : x) s += v;
  if (s < 0) *sink = s;
}

void check_cublas(cublasStatus_t st, const char* what) {
  if (st != CUBLAS_STATUS_SUCCESS) throw CudaError(std::string(what) + " failed: " + cublasGetStatusString(st));
}

/// Median seconds of `launch` over kRuns timed launches, after one untimed.
template <typename Launch>
double median_seconds(Launch&& launch) {
  cudaEvent_t start = nullptr, stop = nullptr;
  IOSIM_CUDA_CHECK(cudaEventCreate(&start));
  IOSIM_CUDA_CHECK(cudaEventCreate(&stop));
  launch();
  IOSIM_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<double> t;
  for (int r = 0; r < kRuns; ++r) {
    IOSIM_CUDA_CHECK(cudaEventRecord(start));
    launch();
    IOSIM_CUDA_CHECK(cudaEventRecord(stop));
    IOSIM_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    IOSIM_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    t.push_back(ms * 1e-3);
  }
  (void)cudaEventDestroy(start);
  (void)cudaEventDestroy(stop);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

struct DeviceBuffer {
  explicit DeviceBuffer(std::size_t bytes) {
    IOSIM_CUDA_CHECK(cudaMalloc(&ptr, bytes));
    IOSIM_CUDA_CHECK(cudaMemset(ptr, 0, bytes));
  }
  ~DeviceBuffer() { (void)cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* ptr = nullptr;
};

}  // namespace

Ceilings measure_ceilings() {
  const DeviceInfo info = device_info();
  Ceilings c;
  c.device = info.name;
  const unsigned sms = static_cast<unsigned>(info.sm_count);
  const unsigned blocks = sms * (2048u / kThreads);  // a full SM of threads each
  DeviceBuffer sink(64);
  auto* usink = static_cast<std::uint32_t*>(sink.ptr);
  auto* fsink = static_cast<float*>(sink.ptr);

  {  // HBM: a 1 GiB copy of random data, far larger than the L2
    constexpr std::size_t kBytes = std::size_t{1} << 30;
    DeviceBuffer src(kBytes), dst(kBytes);
    detail::fill_normal(src.ptr, kBytes / 2, DType::fp16, 1, nullptr);
    const std::size_t n = kBytes / sizeof(uint4);
    const double s = median_seconds([&] {
      copy4_kernel<<<blocks, kThreads>>>(static_cast<const uint4*>(src.ptr), static_cast<uint4*>(dst.ptr), n);
      IOSIM_CUDA_CHECK_LAUNCH();
    });
    c.hbm_gb_per_s = 2.0 * static_cast<double>(kBytes) / s / 1e9;
  }
  {  // L2: a quarter of it, read over and over; the first (untimed) launch brings it in
    const std::size_t bytes = (info.l2_bytes / 4) / sizeof(uint4) * sizeof(uint4);
    constexpr int kReps = 64;
    DeviceBuffer buf(bytes);
    detail::fill_normal(buf.ptr, bytes / 2, DType::fp16, 2, nullptr);
    const double s = median_seconds([&] {
      l2_read_kernel<<<blocks, kThreads>>>(static_cast<const uint4*>(buf.ptr), bytes / sizeof(uint4), kReps, usink);
      IOSIM_CUDA_CHECK_LAUNCH();
    });
    c.l2_gb_per_s = static_cast<double>(bytes) * kReps / s / 1e9;
  }
  {  // L2 reductions: fp32 adds into a sixteenth of the L2 (resident after the untimed launch)
    const std::size_t bytes = (info.l2_bytes / 16) / sizeof(float) * sizeof(float);
    constexpr int kReps = 32;
    DeviceBuffer buf(bytes);
    const double s = median_seconds([&] {
      l2_red_kernel<<<blocks, kThreads>>>(static_cast<float*>(buf.ptr), bytes / sizeof(float), kReps);
      IOSIM_CUDA_CHECK_LAUNCH();
    });
    c.l2_red_gb_per_s = static_cast<double>(bytes) * kReps / s / 1e9;
  }
  {  // SRAM
    constexpr int kIters = 4096;
    const double s = median_seconds([&] {
      smem_read_kernel<<<blocks, kThreads>>>(kIters, usink);
      IOSIM_CUDA_CHECK_LAUNCH();
    });
    c.sram_gb_per_s = static_cast<double>(blocks) * kThreads * kIters * 8 * 16 / s / 1e9;
  }
  {  // tensor cores: 4 mma per warp and iteration
    constexpr int kIters = 8192;
    const double ops = static_cast<double>(blocks) * (kThreads / 32) * kIters * 4 * (2.0 * 16 * 8 * 16);
    const double s16 = median_seconds([&] {
      mma_kernel<false><<<blocks, kThreads>>>(kIters, fsink);
      IOSIM_CUDA_CHECK_LAUNCH();
    });
    const double s_bf = median_seconds([&] {
      mma_kernel<true><<<blocks, kThreads>>>(kIters, fsink);
      IOSIM_CUDA_CHECK_LAUNCH();
    });
    c.tensor_fp16_tflops = ops / s16 / 1e12;
    c.tensor_bf16_tflops = ops / s_bf / 1e12;
  }
  {  // special-function units
    constexpr int kIters = 4096;
    const double s = median_seconds([&] {
      exp2_kernel<<<blocks, kThreads>>>(kIters, fsink);
      IOSIM_CUDA_CHECK_LAUNCH();
    });
    c.exp2_g_per_s = static_cast<double>(blocks) * kThreads * kIters * 8 / s / 1e9;
  }
  {  // cuBLAS GEMM on random inputs (zeros run faster than real data)
    constexpr int kN = 8192;
    constexpr std::size_t kElems = static_cast<std::size_t>(kN) * kN;
    DeviceBuffer a(kElems * 2), b(kElems * 2), out(kElems * 2);
    detail::fill_normal(a.ptr, kElems, DType::fp16, 3, nullptr);
    detail::fill_normal(b.ptr, kElems, DType::fp16, 4, nullptr);
    cublasHandle_t handle = nullptr;
    check_cublas(cublasCreate(&handle), "cublasCreate");
    try {
      const float alpha = 1.f / kN, beta = 0.f;
      const double s = median_seconds([&] {
        check_cublas(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, kN, kN, kN, &alpha, a.ptr, CUDA_R_16F, kN, b.ptr,
                                  CUDA_R_16F, kN, &beta, out.ptr, CUDA_R_16F, kN, CUBLAS_COMPUTE_32F,
                                  CUBLAS_GEMM_DEFAULT),
                     "cublasGemmEx");
      });
      c.gemm_fp16_tflops = 2.0 * kN * kN * static_cast<double>(kN) / s / 1e12;
    } catch (...) {
      (void)cublasDestroy(handle);
      throw;
    }
    (void)cublasDestroy(handle);
  }
  int clock_khz = 0;
  IOSIM_CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  c.max_sm_mhz = clock_khz / 1000.0;
  c.sm_count = info.sm_count;
  c.pipeline = measure_pipeline();
  c.wgmma_not_measured = latency::wgmma_unavailable(info.cc_major, info.cc_minor);
  return c;
}

}  // namespace iosim::gpu
