// The SM clock while the tensor cores are busy on every SM, and the cost of a kernel launch.
//
// Clock: a kernel of 4 blocks of mma.sync per SM (all resident at once) runs ~30-60 ms; each block
// counts its clock64() cycles, and the longest count over the kernel's CUDA event time is the clock.
// The event time includes the launch and the first and last block's lag, microseconds against tens of
// milliseconds. Launch: kLaunches empty kernels back to back in one stream between two events.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "cuda/ceilings/latency.h"
#include "cuda/ceilings/latency_util.cuh"

namespace iosim::gpu::latency {
namespace {

constexpr int kLoadThreads = 256;
constexpr int kLoadBlocksPerSm = 4;
constexpr int kLoadIters = 1 << 18;

__global__ void __launch_bounds__(kLoadThreads) mma_load(int iters, long long* cycles, float* sink) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const long long t0 = clock_now();
  constexpr std::uint32_t kSmall = 0x14001400u;
  const std::uint32_t a = kSmall, b = kSmall;
  float d[4][4] = {};
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%4,%4,%4}, {%5,%5}, "
          "{%0,%1,%2,%3};"
          : "+f"(d[k][0]), "+f"(d[k][1]), "+f"(d[k][2]), "+f"(d[k][3])
          : "r"(a), "r"(b));
    }
  }
  float s = 0;
  for (int k = 0; k < 4; ++k) s += d[k][0] + d[k][1] + d[k][2] + d[k][3];
  if (s < 0) *sink = s;
  __syncthreads();
  if (threadIdx.x == 0) cycles[blockIdx.x] = clock_now() - t0;
#else
  (void)iters;
  (void)cycles;
  (void)sink;
  __trap();
#endif
}

__global__ void empty_kernel() {}

/// Milliseconds between two events around `enqueue()`.
template <typename Enqueue>
double event_ms(Enqueue&& enqueue) {
  cudaEvent_t start = nullptr, stop = nullptr;
  IOSIM_CUDA_CHECK(cudaEventCreate(&start));
  IOSIM_CUDA_CHECK(cudaEventCreate(&stop));
  float ms = 0;
  try {
    IOSIM_CUDA_CHECK(cudaEventRecord(start));
    enqueue();
    IOSIM_CUDA_CHECK(cudaEventRecord(stop));
    IOSIM_CUDA_CHECK(cudaEventSynchronize(stop));
    IOSIM_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  } catch (...) {
    (void)cudaEventDestroy(start);
    (void)cudaEventDestroy(stop);
    throw;
  }
  IOSIM_CUDA_CHECK(cudaEventDestroy(start));
  IOSIM_CUDA_CHECK(cudaEventDestroy(stop));
  return ms;
}

constexpr int kLaunches = 2000;

}  // namespace

double clock_mhz(int sm_count) {
  const int blocks = sm_count * kLoadBlocksPerSm;
  const DeviceMemory cycles(static_cast<std::size_t>(blocks) * sizeof(long long));
  const DeviceMemory sink(64);
  const auto run = [&] {
    mma_load<<<blocks, kLoadThreads>>>(kLoadIters, cycles.as<long long>(), sink.as<float>());
    IOSIM_CUDA_CHECK_LAUNCH();
  };
  (void)event_ms(run);  // warm-up: the clock settles under load
  std::vector<long long> c(static_cast<std::size_t>(blocks));
  std::vector<double> mhz;
  for (int r = 0; r < kRuns; ++r) {
    const double ms = event_ms(run);
    IOSIM_CUDA_CHECK(cudaMemcpy(c.data(), cycles.as<long long>(), c.size() * sizeof(long long), cudaMemcpyDeviceToHost));
    const long long longest = *std::max_element(c.begin(), c.end());
    mhz.push_back(static_cast<double>(longest) / (ms * 1e3));
  }
  return median(mhz);
}

double launch_us() {
  const auto launches = [](int n) {
    for (int i = 0; i < n; ++i) {
      empty_kernel<<<1, 32>>>();
      IOSIM_CUDA_CHECK_LAUNCH();
    }
  };
  (void)event_ms([&] { launches(kLaunches / 10); });  // warm-up: module loaded, queues primed
  std::vector<double> us;
  for (int r = 0; r < kRuns; ++r) us.push_back(event_ms([&] { launches(kLaunches); }) * 1e3 / kLaunches);
  return median(us);
}

}  // namespace iosim::gpu::latency
