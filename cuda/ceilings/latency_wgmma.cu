// wgmma's latency and issue rate (Hopper's warpgroup MMA, PTX "wgmma.mma_async"): the two figures the
// flash3 family's tensor time needs (sm_model.h). Compiled for sm_90a alone (wgmma is an
// arch-specific feature: sm_90a code runs on compute capability 9.0 and nothing else) by
// cuda/ceilings/wgmma.cmake, and only where nvcc can target sm_90a; pipeline.cpp calls these only
// then, and only on a 9.0 device (wgmma_unavailable says why not).
//
// The instruction: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16, both operands read from shared
// memory through matrix descriptors (SS), 64 fp32 accumulators per thread. Raw PTX rather than CuTe's
// SM90 GMMA atoms: this file needs no CUTLASS (calibrate measures wgmma on builds without the flash3
// kernels too) and the instruction timed is the one written here.
//
// Shared memory: A (64 × 16 fp16, K-major) and B (128 × 16 fp16, K-major) in the no-swizzle canonical
// layout of the PTX ISA ("Matrix Descriptor Format", "Shared Memory Matrix Layout"): 8 × 8 core matrices
// of 128 contiguous bytes (8 rows of 16 B); the two core matrices of a row group along K next to each
// other (leading-dimension byte offset 128), row groups 256 bytes apart (stride byte offset 256). A is
// 8 row groups (2 KiB), B 16 (4 KiB); whichever way round the hardware read the two offsets, the
// farthest byte stays inside its tile. Every element is 2^-10, so the sums stay small and finite.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda/ceilings/latency.h"
#include "cuda/ceilings/latency_util.cuh"

namespace iosim::gpu::latency {
namespace {

constexpr int kWarpgroup = 128;
constexpr int kARows = 64, kBRows = 128, kK = 16;
constexpr std::uint32_t kABytes = kARows * kK * 2;  // 2048
constexpr std::uint32_t kBBytes = kBRows * kK * 2;  // 4096
constexpr std::uint32_t kLeadingBytes = 128;        // the next core matrix along K
constexpr std::uint32_t kStrideBytes = 256;         // the next 8-row group along M or N
constexpr std::uint16_t kSmallHalf = 0x1400;        // fp16 2^-10

/// A wgmma matrix descriptor (PTX ISA, "Matrix Descriptor Format"): start address, leading- and
/// stride-dimension byte offsets, each >> 4 in 14 bits; base offset 0; layout type 0 (no swizzle).
__device__ __forceinline__ std::uint64_t descriptor(std::uint32_t smem_address) {
  return static_cast<std::uint64_t>((smem_address & 0x3FFFFu) >> 4) |
         (static_cast<std::uint64_t>(kLeadingBytes >> 4) << 16) |
         (static_cast<std::uint64_t>(kStrideBytes >> 4) << 32);
}

/// Fills A and B (at the start of the block's dynamic shared memory) with 2^-10 and makes the generic
/// proxy's stores visible to wgmma's reads (the async proxy), for the whole block.
__device__ __forceinline__ void fill_tiles(unsigned char* smem) {
  auto* h = reinterpret_cast<std::uint16_t*>(smem);
  for (std::uint32_t i = threadIdx.x; i < (kABytes + kBBytes) / 2; i += blockDim.x) h[i] = kSmallHalf;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
}

/// The two probes' operands: A and B filled (fill_tiles), their descriptors, the accumulator zeroed.
struct Operands {
  std::uint64_t a;
  std::uint64_t b;
};
__device__ __forceinline__ Operands prepare(unsigned char* smem, float (&d)[64]) {
  fill_tiles(smem);
#pragma unroll
  for (int i = 0; i < 64; ++i) d[i] = 0;
  return {descriptor(shared_address(smem)), descriptor(shared_address(smem + kABytes))};
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

// The 64 accumulators of one thread as asm operands %0-%63, then the descriptors %64, %65.
#define IOSIM_D8(i)                                                                                    \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]),           \
      "+f"(d[i + 6]), "+f"(d[i + 7])

/// d += A · Bᵀ, m64n128k16 f32.f16.f16, A and B from shared memory, both K-major, scales 1.
__device__ __forceinline__ void wgmma_m64n128k16(float (&d)[64], std::uint64_t desc_a, std::uint64_t desc_b) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
      "%64, %65, p, 1, 1, 0, 0;\n"
      "}\n"
      : IOSIM_D8(0), IOSIM_D8(8), IOSIM_D8(16), IOSIM_D8(24), IOSIM_D8(32), IOSIM_D8(40), IOSIM_D8(48),
        IOSIM_D8(56)
      : "l"(desc_a), "l"(desc_b), "r"(1));
}

#undef IOSIM_D8

/// Writes `*sink` only if an accumulator went negative (sums of positive products: never), so that
/// none of the 64 is dead.
__device__ __forceinline__ void keep(const float (&d)[64], float* sink) {
  float s = 0;
#pragma unroll
  for (int i = 0; i < 64; ++i) s += d[i];
  if (s < 0) *sink = s;
}

constexpr int kChainUnroll = 8;
constexpr int kChainShort = 16;  // 128 links
constexpr int kChainLong = 80;   // 640 links

/// One warpgroup: each link fenced, issued, committed and waited for, as the flash3 kernels issue a
/// product (warpgroup_arrive, the wgmma, commit, wait): the next link's issue waits on the last's result.
__global__ void __launch_bounds__(kWarpgroup) wgmma_chain(int iters, long long* out, float* sink) {
  extern __shared__ __align__(128) unsigned char smem[];
  float d[64];
  const Operands op = prepare(smem, d);
  const long long t0 = clock_now();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < kChainUnroll; ++u) {
      wgmma_fence();
      wgmma_m64n128k16(d, op.a, op.b);
      wgmma_commit();
      wgmma_wait<0>();
    }
  }
  const long long t1 = clock_now();
  if (threadIdx.x == 0) *out = t1 - t0;
  keep(d, sink);
}

constexpr int kBatch = 16;         // wgmma per commit group, as a GEMM's k-loop issues them
constexpr int kRateShort = 16;     // 256 wgmma per warpgroup
constexpr int kRateLong = 80;      // 1280

/// `blockDim.x / 128` warpgroups, one block per SM (its shared memory keeps a second off): batches of
/// kBatch wgmma into one accumulator per warpgroup, each batch committed, one batch left in flight while
/// the next issues (wait_group 1), all drained at the end. The block's cycles go to `*out` by atomicMax,
/// the slowest SM's.
__global__ void __launch_bounds__(2 * kWarpgroup) wgmma_rate(int iters, long long* out, float* sink) {
  extern __shared__ __align__(128) unsigned char smem[];
  float d[64];
  const Operands op = prepare(smem, d);
  __syncthreads();
  const long long t0 = clock_now();
  for (int i = 0; i < iters; ++i) {
    wgmma_fence();
#pragma unroll
    for (int u = 0; u < kBatch; ++u) wgmma_m64n128k16(d, op.a, op.b);
    wgmma_commit();
    wgmma_wait<1>();
  }
  wgmma_wait<0>();
  __syncthreads();
  const long long t1 = clock_now();
  if (threadIdx.x == 0) {
    atomicMax(reinterpret_cast<unsigned long long*>(out), static_cast<unsigned long long>(t1 - t0));
  }
  keep(d, sink);
}

}  // namespace

double wgmma_latency() {
  const DeviceMemory sink(64);
  constexpr std::size_t kSmem = kABytes + kBBytes;
  return cycles_per_link(
      [&](int iters, long long* out) { wgmma_chain<<<1, kWarpgroup, kSmem>>>(iters, out, sink.as<float>()); },
      kChainShort, kChainLong, kChainUnroll);
}

double wgmma_interval(int warpgroups_per_sm, int sm_count, std::size_t smem_per_block) {
  const DeviceMemory sink(64);
  // More than half an SM's shared memory a block: one block per SM, on every SM.
  IOSIM_CUDA_CHECK(
      cudaFuncSetAttribute(wgmma_rate, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem_per_block)));
  const auto threads = static_cast<unsigned>(warpgroups_per_sm * kWarpgroup);
  // A "link" is one wgmma of every warpgroup of the SM: cycles per m64n128k16 per SM.
  return cycles_per_link(
      [&](int iters, long long* out) {
        IOSIM_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(long long)));
        wgmma_rate<<<static_cast<unsigned>(sm_count), threads, smem_per_block>>>(iters, out, sink.as<float>());
      },
      kRateShort, kRateLong, kBatch * warpgroups_per_sm);
}

}  // namespace iosim::gpu::latency
