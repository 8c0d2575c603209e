// The latency microbenchmarks of iosim calibrate, one function per figure of PipelineSpec
// (sim/core/hardware.h), grouped by file: latency_arith.cu (registers only), latency_smem.cu (shared
// memory and barriers), latency_memory.cu (L2, DRAM, cp.async), clock_launch.cu (clock, launches),
// latency_wgmma.cu (Hopper's wgmma; sm_90a only, built where nvcc targets it: IOSIM_WGMMA_PROBE).
// Cycles are SM cycles (clock64()). Each throws CudaError on a CUDA error. pipeline.cpp runs them all.
#pragma once

#include <cstddef>
#include <string>

namespace iosim::gpu::latency {

// latency_arith.cu: dependent chains in one warp, cycles per link.
[[nodiscard]] double mma_latency();    ///< mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32, accumulator chained
[[nodiscard]] double ex2_latency();    ///< ex2.approx.ftz.f32 of the last result (negated, in the operand)
[[nodiscard]] double fma_latency();    ///< fma.rn.f32 of the last result
[[nodiscard]] double shfl_latency();   ///< shfl.sync.bfly.b32 of the last result
/// Cycles between warp shuffles of one SM sub-partition: 16 warps on one SM (4 a sub-partition), 8
/// independent shuffle chains each, elapsed cycles over shuffles per sub-partition.
[[nodiscard]] double shfl_interval();

// latency_smem.cu
[[nodiscard]] double lds_latency();       ///< ld.shared.u32 whose result is the next address
[[nodiscard]] double ldmatrix_latency();  ///< ldmatrix.x4, conflict-free; its first register is the next address
[[nodiscard]] double bar_latency();       ///< bar.sync 0 of 4 warps that arrive together

// latency_memory.cu: `l2_bytes` is the device's L2 size.
[[nodiscard]] double l2_hit_latency(std::size_t l2_bytes);    ///< ld.global.cg chase over L2 / 16, warm
[[nodiscard]] double dram_latency(std::size_t l2_bytes);      ///< the same over 4 × L2, the L2 swept first
[[nodiscard]] double cp_async_latency();                       ///< cp.async.cg 16 B + commit + wait_group 0, L2-resident

// clock_launch.cu
/// SM clock under load, MHz: clock64() cycles of a ~30-60 ms tensor-core kernel on every SM over its
/// CUDA event time.
[[nodiscard]] double clock_mhz(int sm_count);
[[nodiscard]] double launch_us();  ///< µs per empty kernel, launched back to back in one stream

// latency_wgmma.cu: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16, both operands from shared
// memory. Only where wgmma_unavailable() is empty (else a link error or no kernel image).
[[nodiscard]] double wgmma_latency();  ///< dependent chain in one warpgroup, each wgmma committed and waited for
/// Cycles of one SM per wgmma: `warpgroups_per_sm` (1 or 2) warpgroups in one block on each of
/// `sm_count` SMs (the block takes `smem_per_block` bytes of shared memory, more than half an SM's:
/// one block per SM), back to back in batches of 16, elapsed cycles of the slowest SM over its wgmmas.
[[nodiscard]] double wgmma_interval(int warpgroups_per_sm, int sm_count, std::size_t smem_per_block);

// pipeline.cpp
/// Why the wgmma figures cannot be measured here: "no wgmma on this build: ..." (nvcc could not
/// target sm_90a) or "no wgmma on this device: ..." (not compute capability 9.0, the only one sm_90a
/// code runs on); empty when they can.
[[nodiscard]] std::string wgmma_unavailable(int cc_major, int cc_minor);

}  // namespace iosim::gpu::latency
