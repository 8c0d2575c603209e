// Calibration kernels: small kernels whose hardware-counter values are known in advance, to check
// the profiler on a GPU (tests/gpu/test_profiler.cpp). Plain C++ header; the kernels are in
// calibration.cu. Every launcher enqueues on `stream` and does not synchronise; device pointers
// are the caller's.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "sim/core/dtype.h"

namespace iosim::gpu::calibration {

/// dst ← src, `bytes` bytes (a multiple of 16; both 16-byte aligned), one 16-byte load and one
/// 16-byte store per thread and step, grid-stride. Expected: bytes/32 L2 read sectors and bytes/32
/// L2 write sectors from the SMs; bytes of DRAM reads and, with a drain, bytes of DRAM writes.
void copy(const void* src, void* dst, std::size_t bytes, cudaStream_t stream);

/// A shared-memory probe: `blocks` blocks of `warps_per_block` warps; per iteration every warp
/// stores 32 consecutive 4-byte words (one per bank) and loads a permutation of the same 32 words,
/// so each access is one wavefront, conflict-free.
struct SharedProbe {
  int blocks = 0;
  int warps_per_block = 0;  ///< 1..32
  int iterations = 0;
  /// Expected wavefronts of each kind: blocks × warps_per_block × iterations.
  [[nodiscard]] std::uint64_t wavefronts() const {
    return static_cast<std::uint64_t>(blocks) * static_cast<std::uint64_t>(warps_per_block) *
           static_cast<std::uint64_t>(iterations);
  }
};
/// `sink`: one device word, written only if the computation reaches a value it never reaches.
void shared_ld_st(const SharedProbe& probe, std::uint32_t* sink, cudaStream_t stream);

/// A tensor-core probe: every warp of `blocks` × `warps_per_block` executes `iterations`
/// mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32 (fp32 accumulators), i.e.
/// kOpsPerMma tensor ops each. `dtype` is fp16 or bf16. `sink` as for shared_ld_st.
struct MmaProbe {
  static constexpr std::uint64_t kOpsPerMma = 2ull * 16 * 8 * 16;  ///< 2·M·N·K
  DType dtype = DType::fp16;
  int blocks = 0;
  int warps_per_block = 0;  ///< 1..32
  int iterations = 0;
  [[nodiscard]] std::uint64_t instructions() const {
    return static_cast<std::uint64_t>(blocks) * static_cast<std::uint64_t>(warps_per_block) *
           static_cast<std::uint64_t>(iterations);
  }
  [[nodiscard]] std::uint64_t tensor_ops() const { return instructions() * kOpsPerMma; }
};
/// Throws std::invalid_argument for a dtype other than fp16 or bf16.
void mma(const MmaProbe& probe, float* sink, cudaStream_t stream);

/// Floats between the targets of red_add: one target per 32-byte L2 sector.
inline constexpr std::size_t kRedStrideFloats = 32 / sizeof(float);

/// n threads each atomicAdd 1.0f to dst[i × kRedStrideFloats] with the result unused, which the
/// compiler emits as a reduction (RED), not an atomic (ATOM). `dst` holds n × kRedStrideFloats
/// floats. Expected: n L2 reduction sectors from the SMs, no atomic sectors.
void red_add(float* dst, std::size_t n, cudaStream_t stream);

/// A read probe, to see how the L2 counts what the SMs load: `bytes` of `src` (a multiple of 16;
/// 16-byte aligned) loaded 16 bytes per thread and step, through L1 uncached (`.cg`) either into
/// registers (ld.global.cg) or straight into shared memory (cp.async.cg), there either to 16-byte
/// slots in the order read (each 128-byte line of global memory lands on 128 aligned bytes) or to
/// rows of 128 bytes padded to 144, as iosim's flash kernels lay out their tiles (row r of a tile
/// starts 16·r bytes past a 128-byte boundary). With `every_block_reads_all` each of `blocks` blocks reads all of `src` (data
/// shared by many SMs, like K and V in attention); otherwise the blocks share the reading out, and
/// each byte is read once.
enum class LoadPath : std::uint8_t { ldg, cp_async, cp_async_padded };
struct ReadProbe {
  LoadPath path = LoadPath::ldg;
  std::size_t bytes = 0;
  int blocks = 0;
  bool every_block_reads_all = false;
  /// Sectors the SMs request: bytes / 32 per reading.
  [[nodiscard]] std::uint64_t sectors() const {
    return bytes / 32 * (every_block_reads_all ? static_cast<std::uint64_t>(blocks) : 1u);
  }
};
void read(const ReadProbe& probe, const void* src, std::uint32_t* sink, cudaStream_t stream);

}  // namespace iosim::gpu::calibration
