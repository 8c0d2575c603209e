// Latency of shared-memory loads (ld.shared and ldmatrix.x4, both conflict-free) and of a block
// barrier, as chains timed at two lengths (latency_util.cuh). The loads chase themselves: every word a
// lane loads holds the address that lane loads next, so each load waits for the last one's data.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/ceilings/latency.h"
#include "cuda/ceilings/latency_util.cuh"

namespace iosim::gpu::latency {
namespace {

constexpr int kUnroll = 32;
constexpr int kShortIters = 16;
constexpr int kLongIters = 80;

/// Lane l loads word l, which holds its own address: 32 lanes, 32 banks, one wavefront a load.
__global__ void lds_chain(int iters, long long* out, std::uint32_t* sink) {
  __shared__ std::uint32_t words[32];
  const std::uint32_t mine = shared_address(&words[threadIdx.x]);
  words[threadIdx.x] = mine;
  __syncwarp();
  std::uint32_t p = mine;
  const long long t0 = clock_now();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p) : : "memory");
  }
  const long long t1 = clock_now();
  if (threadIdx.x == 0) *out = t1 - t0;
  if (p != mine) *sink = p;  // the chase never leaves its word
}

/// ldmatrix.sync.aligned.m8n8.x4.shared.b16: lane l gives the address of 16-byte row l (rows 8j..8j+7
/// are matrix j), and its first register receives word l%4 of row l/4 of matrix 0, i.e. word l of the
/// 512-byte tile. Word l holds the address of row l, so the first register is the lane's next address.
/// Each 8-lane phase reads 8 consecutive rows (128 B): no bank conflict.
__global__ void ldmatrix_chain(int iters, long long* out, std::uint32_t* sink) {
  __shared__ __align__(128) std::uint32_t tile[128];  // 4 matrices × 8 rows × 16 B
  const unsigned lane = threadIdx.x;
  const std::uint32_t base = shared_address(tile);
  const std::uint32_t row = base + 16u * lane;
#pragma unroll
  for (unsigned j = 0; j < 4; ++j) tile[32 * j + lane] = 0;
  __syncwarp();
  tile[lane] = row;
  __syncwarp();
  std::uint32_t p = row, r1 = 0, r2 = 0, r3 = 0;
  const long long t0 = clock_now();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%0];"
                   : "+r"(p), "=r"(r1), "=r"(r2), "=r"(r3)
                   :
                   : "memory");
    }
  }
  const long long t1 = clock_now();
  if (threadIdx.x == 0) *out = t1 - t0;
  if (p != row || (r1 & r2 & r3) == 0xFFFFFFFFu) *sink = p;  // the chase never leaves its row
}

constexpr int kBarThreads = 128;  // 4 warps, one on each sub-partition

__global__ void __launch_bounds__(kBarThreads) bar_chain(int iters, long long* out, std::uint32_t* sink) {
  (void)sink;
  __syncthreads();
  const long long t0 = clock_now();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) asm volatile("bar.sync 0;" : : : "memory");
  }
  const long long t1 = clock_now();
  if (threadIdx.x == 0) *out = t1 - t0;
}

template <int kThreads>
double chain(void (*kernel)(int, long long*, std::uint32_t*)) {
  const DeviceMemory sink(64);
  return cycles_per_link(
      [&](int iters, long long* out) { kernel<<<1, kThreads>>>(iters, out, sink.as<std::uint32_t>()); },
      kShortIters, kLongIters, kUnroll);
}

}  // namespace

double lds_latency() { return chain<32>(lds_chain); }
double ldmatrix_latency() { return chain<32>(ldmatrix_chain); }
double bar_latency() { return chain<kBarThreads>(bar_chain); }

}  // namespace iosim::gpu::latency
