// A discrete-event simulation of one SM's resident warps through repeated steps of their blocks: the
// other way to price contention for the pipes, beside the mean-value analysis (mva.h), for the `queued`
// families. Mean-value analysis has each warp circulate on its own, so it sees the warps queue on a
// pipe but not the block barriers that hold every warp of a block until its slowest arrives; this
// simulation issues the warps' instructions one by one and has the barriers, so it sees the skew
// between a block's warps that the queueing leaves at each barrier (results/validation-history.md,
// "The multi-stage loop's instructions").
//
// The machine: four sub-partitions (sm_model.h's kSchedulersPerSm), warp i of the SM's resident warps
// on sub-partition i mod 4, each issuing at most one instruction a cycle, greedy-then-oldest (the
// scheduler of GPGPU-Sim and of Rogers, O'Connor & Aamodt, MICRO 2012; NVIDIA does not publish its
// own): the warp that issued last keeps issuing while it can, else the oldest that can. An
// instruction needs its warp to be ready, its pipe on the sub-partition free (the tensor, FP32,
// special-function and shuffle pipes, each busy for its interval per warp instruction), and, for the
// instructions that move shared-memory bytes (ldmatrix, cp.async, stores), the SM's shared memory
// free; an atomic reduction, the SM's share of the L2's reduction rate free (its warp does not wait
// for the result, but a burst of them queues at that rate: what makes fa2-bwd's simulation worse than
// its queueing, flash2/families.cpp). An instruction holds its sub-partition's issue slot 1 + the
// family's dispatch stall cycles (issue cycles lost when the picked warp's instruction cannot be
// dispatched); after issuing, its warp waits that plus the family's fixed-latency waits, and the MIO
// waits more for an ldmatrix, shuffle or ex2 (kernel_family.h's DependencyWaits, measured with ncu;
// a wait leaves the slot to the sub-partition's other warps, a dispatch stall does not): a warp alone, where no pipe's
// interval exceeds its waits and no load is exposed, runs the step in the SM model's serial time. A barrier holds a block's warps until all have arrived, plus
// its latency; a step's first barrier also waits for the step's tiles: the loads its warps issued
// `lead` steps before (stages − 1 when the loop keeps tiles in flight, else 0: its own), plus their
// round trip.
//
// One warp's step is issued in this order: its loads; its first barrier; the first half of its
// products (ldmatrix and mma interleaved as their counts are); the element-wise work (FP32, ex2 and
// shuffles interleaved); the second half of the products; its stores and reductions; the rest of the
// barriers spread evenly through it; the step's other instructions spread evenly over all of it. The
// blocks start a step apart ÷ blocks (uniform phases); the period is the throughput over the middle
// half of all warp steps' finishes (8 to 32 steps a warp, fewer for longer steps). Known bias, not yet
// fixed: greedy-then-oldest lets the oldest block run ahead where the issue slot is oversubscribed,
// so the window can reach past the time the first block is done, into a drain the GPU (which would
// start another block) does not have: up to about 5% slow, by hand.
#pragma once

#include <cstdint>

namespace iosim {

/// One warp's step: its instructions by kind, and the machine's figures for them, in SM cycles.
struct WarpStep {
  double mma = 0, ldmatrix = 0, fp32 = 0, ex2 = 0, shuffle = 0, load = 0, store = 0, reduce = 0, other = 0;
  double barriers = 0;
  double mma_interval = 0, fp32_interval = 0, ex2_interval = 0, shfl_interval = 0;  ///< per warp instruction
  double smem_cycles = 0;    ///< the SM's shared-memory cycles of the warp's step (its ldmatrix, loads and stores)
  double reduce_cycles = 0;  ///< the SM's reduction cycles of the warp's step (0: not simulated)
  double wait = 0, wait_mio = 0;  ///< DependencyWaits: per instruction, and more per MIO instruction
  double dispatch = 0;            ///< DependencyWaits::dispatch: issue cycles lost per instruction
  double bar_latency = 0;
  double memory = 0;          ///< a load's round trip
  std::uint32_t lead = 0;     ///< steps ahead of its use a tile's loads are issued
  friend bool operator==(const WarpStep&, const WarpStep&) = default;
};

/// The period of a block's step, in the steady state, with `blocks` blocks of `warps` warps each on
/// the SM, every one repeating step `s`. 0 for 0 blocks or warps.
[[nodiscard]] double simulate_sm(const WarpStep& s, std::uint32_t warps, std::uint32_t blocks);

}  // namespace iosim
