// Latency of the register-to-register instructions iosim's kernels chain: mma.sync, ex2, fma and the
// warp shuffle of the row max and row sum, and the issue interval of shuffles (latency_util.cuh says
// how a chain is timed). One warp, one block, for the latencies; every link uses the last link's result.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/ceilings/latency.h"
#include "cuda/ceilings/latency_util.cuh"

namespace iosim::gpu::latency {
namespace {

constexpr int kUnroll = 32;
constexpr int kShortIters = 16;  // 512 links
constexpr int kLongIters = 80;   // 2560 links

__global__ void mma_chain(int iters, long long* out, float* sink) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr std::uint32_t kSmall = 0x14001400u;  // two fp16 of 2^-10: the sums stay small
  const std::uint32_t a = kSmall, b = kSmall;
  float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
  const long long t0 = clock_now();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%4,%4,%4}, {%5,%5}, "
          "{%0,%1,%2,%3};"
          : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
          : "r"(a), "r"(b));
    }
  }
  const long long t1 = clock_now();
  if (threadIdx.x == 0) *out = t1 - t0;
  if (d0 + d1 + d2 + d3 < 0) *sink = d0;  // sums of positive products: never taken
#else
  (void)iters;
  (void)out;
  (void)sink;
  __trap();
#endif
}

__global__ void ex2_chain(int iters, long long* out, float* sink) {
  float x = 0.5f + 0.001f * static_cast<float>(threadIdx.x);
  const long long t0 = clock_now();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      // x ← 2^-x stays in [0.5, 1]; ptxas folds the negation into MUFU.EX2's operand.
      asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(x) : "f"(-x));
    }
  }
  const long long t1 = clock_now();
  if (threadIdx.x == 0) *out = t1 - t0;
  if (x < 0) *sink = x;
}

__global__ void fma_chain(int iters, long long* out, float* sink) {
  float x = 1.0f + 0.001f * static_cast<float>(threadIdx.x);
  const float a = 0.999f, b = 0.001f;  // x stays near 1
  const long long t0 = clock_now();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x) : "f"(a), "f"(b));
  }
  const long long t1 = clock_now();
  if (threadIdx.x == 0) *out = t1 - t0;
  if (x < 0) *sink = x;
}

__global__ void shfl_chain(int iters, long long* out, std::uint32_t* sink) {
  std::uint32_t x = threadIdx.x;
  const long long t0 = clock_now();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) asm volatile("shfl.sync.bfly.b32 %0, %0, 1, 0x1f, 0xffffffff;" : "+r"(x));
  }
  const long long t1 = clock_now();
  if (threadIdx.x == 0) *out = t1 - t0;
  if (x == 0xFFFFFFFFu) *sink = x;  // lane ids only: never taken
}

constexpr int kIntervalWarps = 16;        // 4 on each of the SM's 4 sub-partitions (warp w on w % 4)
constexpr int kSubPartitions = 4;
constexpr int kIntervalChains = 8;        // independent chains per warp
constexpr int kIntervalUnroll = 4;

/// 16 warps, 8 independent shuffle chains each: enough shuffles in flight to keep the shuffle pipe of
/// every sub-partition busy, so elapsed cycles / shuffles per sub-partition is the issue interval.
__global__ void __launch_bounds__(kIntervalWarps * 32) shfl_throughput(int iters, long long* out, std::uint32_t* sink) {
  std::uint32_t x[kIntervalChains];
#pragma unroll
  for (int k = 0; k < kIntervalChains; ++k) x[k] = threadIdx.x + k;
  __syncthreads();
  const long long t0 = clock_now();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < kIntervalUnroll; ++u) {
#pragma unroll
      for (int k = 0; k < kIntervalChains; ++k) {
        asm volatile("shfl.sync.bfly.b32 %0, %0, 1, 0x1f, 0xffffffff;" : "+r"(x[k]));
      }
    }
  }
  __syncthreads();
  const long long t1 = clock_now();
  if (threadIdx.x == 0) *out = t1 - t0;
  std::uint32_t s = 0;
#pragma unroll
  for (int k = 0; k < kIntervalChains; ++k) s ^= x[k];
  if (s == 0xFFFFFFFFu) *sink = s;
}

/// Cycles per link of `kernel` run by one warp.
template <typename T>
double chain(void (*kernel)(int, long long*, T*)) {
  const DeviceMemory sink(64);
  return cycles_per_link([&](int iters, long long* out) { kernel<<<1, 32>>>(iters, out, sink.as<T>()); },
                         kShortIters, kLongIters, kUnroll);
}

}  // namespace

double mma_latency() { return chain(mma_chain); }
double ex2_latency() { return chain(ex2_chain); }
double fma_latency() { return chain(fma_chain); }
double shfl_latency() { return chain(shfl_chain); }

double shfl_interval() {
  const DeviceMemory sink(64);
  // cycles_per_link's "link" here is one iteration's shuffles of one warp; a sub-partition issues
  // those of kIntervalWarps / kSubPartitions warps.
  const double per_iteration = cycles_per_link(
      [&](int iters, long long* out) {
        shfl_throughput<<<1, kIntervalWarps * 32>>>(iters, out, sink.as<std::uint32_t>());
      },
      kShortIters, kLongIters, 1);
  return per_iteration / (kIntervalUnroll * kIntervalChains * (kIntervalWarps / kSubPartitions));
}

}  // namespace iosim::gpu::latency
