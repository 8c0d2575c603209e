// What the latency microbenchmarks of iosim calibrate share (cuda/ceilings/latency_*.cu): the SM's
// cycle counter, a device allocation, and the timing of a chain at two lengths.
//
// A chain kernel runs `iters` iterations of kUnroll dependent links in one warp and writes the cycles
// clock64() counted around the loop. Timing the same kernel at two lengths and dividing the difference
// by the difference in links cancels everything that does not grow with the chain (the clock reads,
// the first issue, the drain of the last link); the loop's own compare and branch do not depend on the
// chain, so they issue while a link waits. Each figure is the median of kRuns such differences, after
// one untimed run of each length (code, caches and clocks warm).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cuda/runtime/check.h"

namespace iosim::gpu::latency {

constexpr int kRuns = 7;

/// The SM's 64-bit cycle counter. Volatile, so neither nvcc nor ptxas moves it across the chain.
__device__ __forceinline__ long long clock_now() {
  long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) : : "memory");
  return t;
}

/// The shared-memory address (as PTX's .shared state space sees it) of a __shared__ object.
__device__ __forceinline__ std::uint32_t shared_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

/// A device allocation of `bytes`, zeroed, freed on scope exit.
class DeviceMemory {
 public:
  explicit DeviceMemory(std::size_t bytes) {
    IOSIM_CUDA_CHECK(cudaMalloc(&ptr_, bytes));
    IOSIM_CUDA_CHECK(cudaMemset(ptr_, 0, bytes));
  }
  ~DeviceMemory() { (void)cudaFree(ptr_); }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  template <typename T>
  [[nodiscard]] T* as() const {
    return static_cast<T*>(ptr_);
  }

 private:
  void* ptr_ = nullptr;
};

[[nodiscard]] inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Cycles per link: `launch(iters, out)` enqueues a kernel that runs `iters` iterations of
/// `links_per_iter` links and writes its cycle count to `*out`. Median over kRuns of
/// (cycles(iters2) − cycles(iters1)) / ((iters2 − iters1) · links_per_iter).
template <typename Launch>
[[nodiscard]] double cycles_per_link(Launch&& launch, int iters1, int iters2, int links_per_iter) {
  const DeviceMemory out(sizeof(long long));
  const auto cycles = [&](int iters) {
    launch(iters, out.as<long long>());
    IOSIM_CUDA_CHECK_LAUNCH();
    IOSIM_CUDA_CHECK(cudaDeviceSynchronize());
    long long c = 0;
    IOSIM_CUDA_CHECK(cudaMemcpy(&c, out.as<long long>(), sizeof c, cudaMemcpyDeviceToHost));
    return static_cast<double>(c);
  };
  (void)cycles(iters1);
  (void)cycles(iters2);
  std::vector<double> per_link;
  for (int r = 0; r < kRuns; ++r) {
    const double c1 = cycles(iters1);
    const double c2 = cycles(iters2);
    per_link.push_back((c2 - c1) / (static_cast<double>(iters2 - iters1) * links_per_iter));
  }
  return median(per_link);
}

}  // namespace iosim::gpu::latency
