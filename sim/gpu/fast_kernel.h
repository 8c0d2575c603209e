// One kernel of the fast replay (fast_replay.h): its blocks launched and interleaved as in the exact
// replay (gpu_model.cpp), through a sampled L2, with these shortcuts, each described where it is
// made (fast_kernel.cpp) and in docs/gpu-model.md:
//  - steps that repeat a step which only hit, with nothing in the L2 changed since, are counted
//    without replaying them (the blocks of a head loading the same K/V tile, one after another);
//  - heads that repeat are skipped, their counts the mean of the steady heads'; the replay is the
//    whole launch with a stretch of turns taken out, so the tail's slots run as in the whole launch;
//  - the launch is scheduled over every block from the blocks' step counts;
//  - a warm run stops replaying where its state is the cold run's at the same point (KernelTrace);
//  - with GpuModelOptions::skip_rounds (off by default), rounds within a head whose rates repeat are
//    jumped over and counted at the rates of the windows about them (SkipLedger, skip_ledger.h).
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/gpu/address_map.h"
#include "sim/gpu/block_bytes.h"
#include "sim/gpu/gpu_model.h"
#include "sim/gpu/set_sample.h"
#include "sim/memory/memory_level.h"

namespace iosim {

/// What one fast kernel run did beyond its prediction (for tests and the bench).
struct FastKernelStats {
  std::uint64_t steps = 0;         ///< block steps with transfers, in the blocks replayed
  std::uint64_t steps_reused = 0;  ///< of which counted from an earlier step that only hit
  std::uint64_t steps_skipped = 0;  ///< block steps in rounds skipped (GpuModelOptions::skip_rounds), not in `steps`
  std::uint64_t rounds_skipped = 0;  ///< rounds skipped
  std::uint64_t lines = 0;         ///< line requests sent to the (sampled) L2
  std::uint64_t followed = 0;      ///< kernels whose run took the rest of an earlier run's (KernelTrace)
  std::uint64_t digested_at = 0;   ///< `lines` when the L2 was last digested at a checkpoint
};

/// What the requests of one grid block caused (sectors, before any scaling).
struct HeadCounts {
  std::uint64_t read = 0, write = 0, red = 0;  ///< asked by the SMs, every line
  std::uint64_t dram_read = 0, dram_write = 0, fabric = 0;  ///< in the sampled sets
  std::uint64_t dirtied = 0;  ///< sectors made dirty, in the sampled sets

  HeadCounts& operator+=(const HeadCounts& o);
  HeadCounts& operator-=(const HeadCounts& o);
};

/// One kernel's run as a later run of the same kernel can follow it (the warm run after the cold
/// one, FastReplay::warm()). The blocks are launched and interleaved the same way whatever the L2
/// holds, so two runs that reach a checkpoint (a point of the launch: the kernel's start, or, in
/// x-major order once the heads are planned, the start of a head) with the same L2 contents and the
/// same reuse state (digested: MemoryLevel::digest_contents(), and the last step each partition may
/// reuse) make the same requests and count the same from there on: the later run takes the earlier
/// one's counts for the rest of the kernel, and its result for every kernel after it.
struct KernelTrace {
  struct Checkpoint {
    std::uint64_t launched = 0;            ///< blocks launched, in launch order, when it was taken
    std::array<std::uint64_t, 2> state{};  ///< digest of the L2's contents and the reuse state
    std::vector<std::pair<std::uint64_t, HeadCounts>> running;  ///< blocks in flight: their counts so far
  };
  std::vector<Checkpoint> checkpoints;
  std::vector<HeadCounts> counts;  ///< every block's, at the end (grid head × x count + x)
  KernelPrediction out;            ///< the run's result
  bool complete = false;           ///< every checkpoint could be digested and the run finished
};

/// A kernel's blocks mapped to bytes (BlockBytes, per x), kept from one run of the kernel to the
/// next (the fit's passes and the warm run record each x once), up to a number of bytes.
struct KernelBlocks {
  const Kernel* kernel = nullptr;  ///< whose blocks `x` holds
  std::vector<BlockBytes> x;       ///< per x, empty until recorded (and while there is no room)
  std::uint64_t bytes = 0;         ///< of items and segments kept in `x`, all x
};

/// A run's relation to another run of the kernel: none, recording a trace, or following one; and
/// the blocks earlier runs recorded.
struct TraceUse {
  KernelTrace* record = nullptr;        ///< filled by the run
  const KernelTrace* follow = nullptr;  ///< a complete trace of an earlier run, from the same L2 shape
  bool converged = false;               ///< set when the run took the rest of `follow`
  KernelBlocks* blocks = nullptr;       ///< kept for later runs; the run's own when nullptr
  /// Set before each block's requests reach the L2 to the weight its counts take in the kernel's
  /// extrapolated counts (a steady head's stand for the heads skipped too), so that per-set tallies
  /// of the sample's error weigh them alike; 1 once the run ends. Not set when nullptr.
  double* tally_weight = nullptr;
  /// Set by the run: the error of the rounds skipped (GpuModelOptions::skip_rounds), in sampled DRAM
  /// and fabric sectors, weighed as the sampled tallies are: per skip (and its rewarm), half the
  /// difference between the rates of the windows before and after it, times its sectors asked.
  double skip_dram_error = 0, skip_fabric_error = 0;
};

/// Replays kernel `k` through `l2` (one partition or two), whose misses
/// reach `dram`; counts stride × the sampled sets' DRAM traffic. Adds what it did to `stats`. With
/// `trace.follow`, once converged the L2 is left as it was at that checkpoint, not at the end.
[[nodiscard]] KernelPrediction run_fast_kernel(const Kernel& k, const ScheduleContext& ctx, const GpuModelOptions& opt,
                                               MemoryLevel& l2, const MemoryLevel& dram,
                                               const AddressMap& amap, const SetSample& sample, FastKernelStats& stats,
                                               TraceUse& trace);

}  // namespace iosim
