// Latency of global memory as iosim's kernels meet it: an L2 hit, a DRAM access, and the round trip
// of one cp.async. The first two are pointer chases (ld.global.cg, which skips the L1) along a random
// cycle through the lines of a buffer: 128-byte nodes in a random order, so neither the L1, the
// sectors of a line nor any prefetch serves the next load. The chase over L2 / 16 runs warm (every line
// resident); the one over 4 × L2 runs after an L2 sweep (cuda/runtime/l2_sweep.h), so every step is a
// DRAM access (its page walks included: the buffer spans many pages, as any large tensor does).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "cuda/ceilings/latency.h"
#include "cuda/ceilings/latency_util.cuh"
#include "cuda/runtime/l2_sweep.h"

namespace iosim::gpu::latency {
namespace {

constexpr std::size_t kNodeBytes = 128;  // one L2 line a node
constexpr int kUnroll = 16;

/// node[order[k]] ← the address of node[order[k + 1]], cyclically.
__global__ void link_cycle(unsigned char* base, const std::uint32_t* order, std::uint32_t nodes) {
  const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= nodes) return;
  const std::uint32_t next = order[(k + 1) % nodes];
  *reinterpret_cast<unsigned long long*>(base + std::size_t{order[k]} * kNodeBytes) =
      reinterpret_cast<unsigned long long>(base + std::size_t{next} * kNodeBytes);
}

/// One thread follows the cycle for iters × kUnroll steps from `start`.
__global__ void chase(const unsigned long long* start, int iters, long long* out, unsigned long long* sink) {
  unsigned long long p = reinterpret_cast<unsigned long long>(start);
  const long long t0 = clock_now();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p) : : "memory");
  }
  const long long t1 = clock_now();
  *out = t1 - t0;
  if (p == 0) *sink = p;  // the cycle holds no null
}

/// A random cycle through every node of a `bytes` buffer; the first node's address.
class Cycle {
 public:
  explicit Cycle(std::size_t bytes) : memory_(bytes), nodes_(static_cast<std::uint32_t>(bytes / kNodeBytes)) {
    std::vector<std::uint32_t> order(nodes_);
    std::iota(order.begin(), order.end(), 0u);
    std::mt19937_64 rng(0x10517u);  // fixed: the same cycle every run
    std::shuffle(order.begin(), order.end(), rng);
    const DeviceMemory d_order(order.size() * sizeof(std::uint32_t));
    IOSIM_CUDA_CHECK(cudaMemcpy(d_order.as<std::uint32_t>(), order.data(), order.size() * sizeof(std::uint32_t),
                                cudaMemcpyHostToDevice));
    link_cycle<<<(nodes_ + 255) / 256, 256>>>(memory_.as<unsigned char>(), d_order.as<std::uint32_t>(), nodes_);
    IOSIM_CUDA_CHECK_LAUNCH();
    IOSIM_CUDA_CHECK(cudaDeviceSynchronize());
    start_ = reinterpret_cast<const unsigned long long*>(memory_.as<unsigned char>() + std::size_t{order[0]} * kNodeBytes);
  }
  [[nodiscard]] const unsigned long long* start() const { return start_; }
  [[nodiscard]] std::uint32_t nodes() const { return nodes_; }

 private:
  DeviceMemory memory_;
  std::uint32_t nodes_;
  const unsigned long long* start_ = nullptr;
};

constexpr int kUnrollCp = 16;
constexpr int kCpLines = 1024;  // 128 KiB of source lines, L2-resident after the warm-up run

/// One thread: cp.async.cg of 16 B from a new line, commit, wait for it, kUnrollCp times an iteration.
/// wait_group 0 makes each copy wait for the last, so a link is one round trip.
__global__ void cp_async_chain(const uint4* src, int iters, long long* out, std::uint32_t* sink) {
  __shared__ __align__(16) uint4 dst[2];
  const std::uint32_t d = shared_address(&dst[0]);
  const long long t0 = clock_now();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < kUnrollCp; ++u) {
      const uint4* from = src + static_cast<std::size_t>((i * kUnrollCp + u) % kCpLines) * (kNodeBytes / sizeof(uint4));
      asm volatile(
          "cp.async.cg.shared.global [%0], [%1], 16;\n\t"
          "cp.async.commit_group;\n\t"
          "cp.async.wait_group 0;"
          :
          : "r"(d), "l"(from)
          : "memory");
    }
  }
  const long long t1 = clock_now();
  *out = t1 - t0;
  if (dst[0].x == 0xFFFFFFFFu) *sink = dst[0].x;  // the source is zero
}

}  // namespace

double l2_hit_latency(std::size_t l2_bytes) {
  const Cycle cycle(std::max<std::size_t>(l2_bytes / 16, std::size_t{1} << 20));
  const DeviceMemory sink(64);
  const int whole = static_cast<int>(cycle.nodes() / kUnroll);
  const DeviceMemory out(sizeof(long long));
  // One pass over the whole cycle brings every line into the L2.
  chase<<<1, 1>>>(cycle.start(), whole, out.as<long long>(), sink.as<unsigned long long>());
  IOSIM_CUDA_CHECK_LAUNCH();
  IOSIM_CUDA_CHECK(cudaDeviceSynchronize());
  return cycles_per_link(
      [&](int iters, long long* o) { chase<<<1, 1>>>(cycle.start(), iters, o, sink.as<unsigned long long>()); },
      32, 256, kUnroll);  // past the cycle's end the chase goes round again, still in the L2
}

double dram_latency(std::size_t l2_bytes) {
  const Cycle cycle(4 * l2_bytes);
  const L2Sweep sweep;
  const DeviceMemory sink(64);
  return cycles_per_link(
      [&](int iters, long long* o) {
        sweep.sweep(nullptr);  // same stream: done before the chase starts
        chase<<<1, 1>>>(cycle.start(), iters, o, sink.as<unsigned long long>());
      },
      16, 128, kUnroll);
}

double cp_async_latency() {
  const DeviceMemory src(static_cast<std::size_t>(kCpLines) * kNodeBytes);
  const DeviceMemory sink(64);
  return cycles_per_link(
      [&](int iters, long long* o) {
        cp_async_chain<<<1, 1>>>(src.as<uint4>(), iters, o, sink.as<std::uint32_t>());
      },
      kCpLines / kUnrollCp, 5 * kCpLines / kUnrollCp, kUnrollCp);
}

}  // namespace iosim::gpu::latency
