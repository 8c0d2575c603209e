// One kernel of the fast replay (fast_replay.h): its blocks launched and interleaved as in the exact
// replay (gpu_model.cpp), through a sampled L2, with three shortcuts, each described where it is
// made (fast_kernel.cpp) and in docs/gpu-model.md:
//  - steps that repeat a step which only hit, with nothing in the L2 changed since, are counted
//    without replaying them (the blocks of a head loading the same K/V tile, one after another);
//  - heads that repeat are skipped, their counts the mean of the steady heads';
//  - the launch is scheduled over every block from the blocks' step counts.
#pragma once

#include <cstdint>

#include "sim/gpu/address_map.h"
#include "sim/gpu/gpu_model.h"
#include "sim/gpu/set_sample.h"
#include "sim/memory/memory_level.h"
#include "sim/memory/partitioned_l2.h"

namespace iosim {

/// What one fast kernel run did beyond its prediction (for tests and the bench).
struct FastKernelStats {
  std::uint64_t steps = 0;         ///< block steps with transfers, in the blocks replayed
  std::uint64_t steps_reused = 0;  ///< of which counted from an earlier step that only hit
  std::uint64_t lines = 0;         ///< line requests sent to the (sampled) L2
};

/// Replays kernel `k` through `l2` (partitioned_ is `l2` when it has two partitions), whose misses
/// reach `dram`; counts stride × the sampled sets' DRAM traffic. Adds what it did to `stats`.
[[nodiscard]] KernelPrediction run_fast_kernel(const Kernel& k, const ScheduleContext& ctx, const GpuModelOptions& opt,
                                               MemoryLevel& l2, PartitionedL2* partitioned, const MemoryLevel& dram,
                                               const AddressMap& amap, const SetSample& sample, FastKernelStats& stats);

}  // namespace iosim
