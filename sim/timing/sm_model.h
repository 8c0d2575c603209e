// The SM model: how long one step of a thread block takes on an SM shared with other blocks.
//
// A step (one segment of the block's profile, step_profile.h) becomes warp instructions through the
// kernel's family (kernel_family.h): tensor-core mma.sync m16n8k16 per warp from each product's warp
// split, ldmatrix.x4 for the operands read from shared memory, cp.async for loads (or, for a Hopper
// family, wgmma m64nNk16 per warpgroup reading shared operands itself and TMA loads that take no
// per-lane instruction: the family's producer warps are left out, as they issue nothing else), ex2 on the special
// function unit, FP32 instructions for the rest of the softmax, the shuffles of the row reductions,
// block barriers, and the family's step overhead (the integer, conversion and control instructions the
// schedule does not name, kernel_family.h's StepOverhead, fitted to ncu's counts of the compiled
// kernels). The mix by kind is kept (instruction_mix.h) to set beside ncu's. Per step and warp:
//
//   chain     one warp alone through the step: each product max(its tensor-pipe time, k/16 chained
//             mma latencies) plus the first ldmatrix's latency; the softmax's FP32 and ex2 work at the
//             pipes' rates plus one latency each; the shuffle rounds; the barriers. At least the warp's
//             serial time: every instruction it issues, plus the waits on its own results the family's
//             compiled code has and the issue cycles its dispatch stalls lose (kernel_family.h's
//             DependencyWaits, measured with ncu's warp-state counters), plus its barriers. The
//             loads' round trip (the L2 hit latency, DRAM's for the share that misses) is added
//             unless earlier steps cover it (stages).
//   pipes     the warp's work on each pipe of its sub-partition (tensor, special function, FP32,
//             shuffle, and the issue slot for the rest; the slot's whole load, in the issue bound, at
//             1 + the dispatch stalls an instruction), its share of the SM's shared-memory bandwidth
//             and of the L2's fp32 reduction rate (the backward's dQ atomics; `measured:
//             l2_red_gb_per_s`, none where not measured). A RED returns nothing: where the family's
//             code follows its reductions with a product (KernelFamily::reductions_overlapped), the
//             queued warps do not wait for them and only their rate bounds the step.
//
// With w warps resident on a sub-partition (b blocks on the SM):
//   queued    (FlashAttention-2's families) the warps are the customers of a closed queueing network
//             solved exactly by mean-value analysis (mva.h): each pipe a station with the warp's work
//             as its demand, the rest of the chain a delay. One warp takes its chain (or its stations'
//             work, where that is longer: the stations are visited one after another); many tend to the
//             busiest pipe's work times w; in between each also waits behind the others on the pipe it
//             needs, which neither bound sees.
//   simulated (FlashAttention-2's forward, FlashAttention's forward and backward) the same warps and
//             pipes, simulated instruction by instruction with the blocks' barriers (sm_sim.h), so that
//             a block waits at each barrier for its slowest warp; at least the queued bound's issue
//             and one warp's chain (with its exposed loads). A run of one step (a block's first, its
//             epilogue, a causal block's diagonal step) is queued: the simulation measures repeats.
//   staggered (FlashAttention-3's ping-pong) the larger of the chain and w times the busiest pipe's
//             work (the bound of interval and MWP/CWP models, Hong & Kim ISCA 2009): the schedule keeps
//             the warpgroups out of each other's way. With the intra-warpgroup overlap
//             (HopperTraits::overlap_products) the chain is the first product then the rest, and a
//             block adds its pipelined loop's drain once (block_time).
//   lockstep  (FlashAttention-3's backward) the warpgroups meet at a barrier every step and run their
//             element-wise work together, while the tensor pipe waits: the tensor pipe's work of all
//             warps plus one warp's chain less its products, or the larger bound above.
// Every figure comes from the config's pipeline and measured sections (iosim calibrate).
#pragma once

#include <cstdint>

#include "sim/core/dtype.h"
#include "sim/core/hardware.h"
#include "sim/schedule/compiled_kernel.h"
#include "sim/schedule/kernel_family.h"
#include "sim/timing/instruction_mix.h"
#include "sim/timing/smem_wavefronts.h"
#include "sim/timing/sm_sim.h"
#include "sim/timing/step_profile.h"

namespace iosim {

/// Bytes of one row of a TMA box under the 128-byte swizzle the Hopper kernels' shared tiles use: a
/// wider row (d = 128 at 16 bits) is copied as several boxes side by side.
inline constexpr double kTmaRowBytes = 128;

/// Streaming multiprocessor sub-partitions, each with its own warp scheduler (one instruction a
/// cycle): four on Volta, Ampere and Hopper (NVIDIA's A100 and H100 whitepapers).
inline constexpr std::uint32_t kSchedulersPerSm = 4;

/// Per-instruction figures of one GPU for one element type, in SM cycles.
struct SmRates {
  double clock_hz = 0;
  double mma_interval = 0;     ///< cycles between m16n8k16 MMAs of one sub-partition at the tensor rate
  /// Cycles of one sub-partition's tensor cores per m16n8k16's worth of a wgmma (2·16·8·16 FLOPs):
  /// at the rate a cuBLAS GEMM reaches (`measured: gemm_fp16_tflops`, wgmma on Hopper) as a fraction
  /// of the datasheet's fp16 peak, applied to the type's peak (an assumption for bf16 and fp8: the
  /// same tensor cores); at the datasheet's peak where it is not measured. Not `measured:`
  /// tensor_*_tflops: those are mma.sync's, which cannot reach the peak on Hopper (FlashAttention-3 §1).
  /// Where the config has `wgmma_interval` (measured by iosim calibrate, or a pipeline: default):
  /// that figure, converted by wgmma_interval_per_smsp (fp16; bf16 and fp8 at the ratio of their
  /// datasheet peaks to fp16's), in place of the GEMM's rate.
  double wgmma_interval = 0;
  double ex2_interval = 0;     ///< cycles per warp ex2 of one sub-partition
  double fp32_interval = 0;    ///< cycles per warp FP32 instruction of one sub-partition
  double shfl_interval = 0;
  double smem_bytes_per_cycle = 0;  ///< one SM's shared-memory bandwidth
  double l2_bytes_per_cycle = 0;    ///< one SM's share of the L2's bandwidth
  double red_bytes_per_cycle = 0;   ///< one SM's share of the L2's fp32 reduction rate (0: not measured)
  PipelineSpec lat;                 ///< the latencies (measured where the config has them)
};

/// The SM's rates for a kernel of type `t`. `wgmma_family`: a wgmma family's kernel, whose cycles run at
/// `measured.wgmma_clock_mhz` where the config has it (the tensor cores' power limit), else at the
/// clock of every other kernel.
[[nodiscard]] SmRates sm_rates(const HardwareSpec& hw, DType t, bool wgmma_family = false);

/// m16n8k16s (2·16·8·16 FLOPs each) in one m64n128k16 (2·64·128·16): 4 · 16 · 1 = 64.
inline constexpr double kMmaPerM64n128k16 = (64.0 * 128 * 16) / (16.0 * 8 * 16);

/// PipelineSpec::wgmma_interval (cycles of one SM per m64n128k16) in SmRates's unit (cycles of one
/// sub-partition per m16n8k16's worth): a warpgroup's four warps sit on the SM's four sub-partitions
/// and each computes 16 of the 64 rows, so an m64n128k16 puts 64 / 4 = 16 m16n8k16s on every
/// sub-partition, all four working through the SM's cycles together: cycles × 4 / 64.
[[nodiscard]] double wgmma_interval_per_smsp(double cycles_per_m64n128k16_per_sm);

/// What one block of a kernel needs of an SM.
struct BlockShape {
  std::uint32_t warps = 4;
  std::uint32_t stages = 1;
  double l2_hit_rate = 1;  ///< of the kernel's loads (the GPU model's DRAM reads over its L2 reads)
  /// Bytes one TMA copy of the step's loads moves (its box: rows × kTmaRowBytes); 0: not TMA-loaded.
  double tma_copy_bytes = 0;
  /// One warp's instructions in a K/V step of the compiled kernel, from its SASS (kernel_step_mix.h);
  /// 0: none, the family's fitted StepOverhead prices what the schedule does not name. Where set, a
  /// step's instructions beyond those the schedule names are the rest of this count.
  double sass_step_instructions = 0;
  /// The same of a masked step (flash2_forward_step_masked: the causal diagonal, a window's edge, the
  /// last tile past n_kv), through the kernel's masking block; 0: masked steps count as unmasked ones.
  double sass_masked_step_instructions = 0;
  /// The head dimension, the K/V tile's columns (B_c; 0: not a tiled kernel's) and the bytes of an element
  /// of O, for the families whose shared-memory wavefronts are counted block by block
  /// (SharedLayout::flashdecode, flashdecode_combine); not timed.
  std::uint64_t head_dim = 0;
  std::uint64_t tile_cols = 0;
  std::uint64_t output_element_bytes = 0;
};

/// One segment's cost for a block of `shape`, in cycles.
struct StepCost {
  double chain = 0;        ///< one warp's dependent chain alone, memory waits left out
  double chain_busy = 0;   ///< the part of it the warp keeps a pipe busy (the rest is waiting)
  /// Under HopperTraits::overlap_products, the chains of the step's first product (S = Q Kᵀ) and of
  /// its last (O += P V): what one iteration of the pipelined loop adds to its period (block_time).
  double first_product_chain = 0, last_product_chain = 0;
  double product_chain = 0;  ///< the products' part of `chain` (each product's time, one after another)
  double memory = 0;       ///< the round trip of the step's loads
  /// Cycles one block's loads take at the SM's share of the L2's bandwidth, which the resident blocks
  /// divide: a throughput bound of the step, beside the pipes' (so far only compiled kernels' steps set it).
  double memory_per_block = 0;
  bool pipelined = false;  ///< its loads were issued `lead` steps ahead
  /// The steps between its loads' issue and their use, which cover their round trip: `stages - 1` for
  /// a schedule's pipeline; a compiled kernel's from where its code issues and waits (compiled_step.h).
  std::uint32_t lead = 0;
  double warp_issue = 0;   ///< one warp's work on its sub-partition's busiest pipe
  /// One warp's work on each pipe (tensor, ex2, FP32, shuffle, and the issue slot for instructions on
  /// none of those): the queueing stations of a `queued` family. The issue cycles of the instructions
  /// on the other pipes are not in pipe_issue (a warp issues them while those pipes work); the issue
  /// slot's whole load still bounds the step (`warp_issue` when it is the busiest).
  double pipe_tensor = 0, pipe_sfu = 0, pipe_fp32 = 0, pipe_shfl = 0, pipe_issue = 0;
  double block_smem = 0;   ///< the block's shared-memory cycles
  double block_reduce = 0; ///< the block's atomic adds at its SM's share of the L2's reduction rate
  bool reductions_overlapped = false;  ///< the family's (kernel_family.h): the reductions no station
  bool reads_beside_products = false;  ///< the family's (kernel_family.h): one warp overlaps tensor and smem
  /// What one warp's waits grow by where another warp shares its sub-partition (DependencyWaits::shared).
  double shared_waits = 0;
  double issue_all = 0;  ///< every instruction's issue slot (with its dispatch stalls)
  double block_tma = 0;    ///< the block's TMA copies at the SM's TMA unit (HopperTraits::tma_copy_cycles)
  InstructionMix mix;      ///< one warp's instructions
  const char* pipe = "";   ///< that busiest pipe
  WarpStep sim;            ///< the step as the SM simulation issues it (sm_sim.h)
};

[[nodiscard]] StepCost step_cost(const Segment& s, bool first, bool last, const KernelFamily& f,
                                 const BlockShape& shape, const SmRates& r);

/// The time of one step with `blocks` blocks resident on the SM, and which bound set it.
struct StepTime {
  double cycles = 0;
  bool latency_bound = false;
  double busy = 0;  ///< cycles of it the pipes were busy: issue-bound work; the rest is latency
};
[[nodiscard]] StepTime step_time(const StepCost& c, const BlockShape& shape, std::uint32_t blocks, Overlap overlap);

/// A whole block at `blocks` blocks per SM: cycles, and the part of them spent waiting on latency
/// (a dependent chain, a barrier, a load's round trip) rather than keeping a pipe busy.
struct BlockTime {
  double cycles = 0;
  double latency_cycles = 0;
  const char* pipe = "";  ///< the busiest pipe of its longest issue-bound run
  InstructionMix instructions;  ///< every warp's, the whole block
  SmemWavefronts wavefronts;    ///< the whole block's shared-memory wavefronts (smem_wavefronts.h)
};
/// `compiled`: the kernel's compiled record, which a `compiled` family's steps are priced from
/// (compiled_step.h); nullptr for the others.
[[nodiscard]] BlockTime block_time(const BlockProfile& p, const KernelFamily& f, const BlockShape& shape,
                                   const SmRates& r, std::uint32_t blocks, const CompiledKernel* compiled = nullptr);

}  // namespace iosim
