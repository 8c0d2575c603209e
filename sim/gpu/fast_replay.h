// The fast replay of the GPU model (GpuModelOptions::l2 = fast): the same blocks, launched and
// interleaved as in the exact replay (gpu_model.cpp), through a sample of the L2's sets
// (set_sample.h), and, where a kernel's heads repeat, through a few of its heads only:
//
//  - Heads. In x-major launch order a kernel runs head after head (a period: one head, or one GQA
//    group of heads sharing K and V). Once the heads replayed have touched twice the L2's capacity,
//    the L2 holds nothing of the kernel that came before: each later head sees what its predecessor
//    left, as the next one will. So the replay runs the leading heads (that warm-up, then two steady
//    periods), jumps to the last heads (again twice the L2's capacity, so that what the next kernel
//    finds is what the real run leaves), and adds the steady periods' mean per head for the heads
//    it skipped.
//  - Sets. Every stride-th set is simulated; misses, write-backs, fabric reads and dirty bytes are
//    scaled by the stride. The stride is chosen so that about kLineBudget line requests are replayed.
//
// Exact in any case: the sectors the SMs ask for (counted line by line, sampled or not, on every
// replayed head; skipped heads ask for what their steady neighbours ask), blocks, waves, occupancy,
// FLOPs, shared-memory bytes and the busiest SM (the launch is scheduled over every block from each
// block's step count, which does not depend on the L2).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/gpu/address_map.h"
#include "sim/gpu/gpu_model.h"
#include "sim/gpu/set_sample.h"
#include "sim/memory/dram.h"
#include "sim/memory/partitioned_l2.h"

namespace iosim {

class FastReplay {
 public:
  /// About this many line requests are replayed per pass (the stride's target).
  static constexpr std::uint64_t kLineBudget = std::uint64_t{1} << 21;
  /// The fewest sets per partition a sample keeps.
  static constexpr std::uint64_t kMinSets = 16;

  FastReplay(const Schedule& s, const ScheduleContext& ctx, const GpuModelOptions& opt);

  /// Every kernel once, counting (extrapolated).
  Prediction pass(const std::vector<const Kernel*>& kernels);
  /// Writes the L2's dirty lines back, keeping them (between a warm run's two passes).
  void flush() { l2_->flush(); }

  [[nodiscard]] std::uint32_t stride() const { return sample_.stride(); }

 private:
  const ScheduleContext& ctx_;
  const GpuModelOptions& opt_;
  Dram dram_;
  std::unique_ptr<MemoryLevel> l2_;
  PartitionedL2* partitioned_ = nullptr;
  AddressMap amap_;
  SetSample sample_;
};

}  // namespace iosim
