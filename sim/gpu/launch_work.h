// A launch's work that the L2 does not change: the whole grid scheduled over the slots from each
// block's step count, as both replays interleave blocks (a block of s steps holds its slot s + 1
// turns; a freed slot takes the next block in launch order, lower slots first), and the blocks'
// FLOPs and shared-memory bytes summed in the order they finish, per SM and in all.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "sim/core/traffic.h"
#include "sim/core/units.h"
#include "sim/gpu/gpu_model.h"

namespace iosim {

/// One block's work, the same for every head (Kernel::block does not depend on it).
struct BlockWork {
  std::uint64_t steps = 0;  ///< step markers
  ComputeCounts compute;
  Bytes sram;  ///< BlockRecorder::sram()
};

/// Where and when one block of a launch runs: its slot, and the turns it holds it, [start, end].
struct BlockTurns {
  std::uint64_t block = 0;  ///< its position in launch order
  std::size_t slot = 0;
  std::uint64_t start = 0, end = 0;
};

/// Walks the launch of `heads` heads of `profiles` (one per x) over `slots` slots: calls `ended` for
/// each block in the order the blocks end (by turn, lower slots first), which is also the order in
/// which the freed slots take the next block in launch order. Neither depends on the L2.
void walk_launch(const std::vector<BlockWork>& profiles, std::uint64_t heads, LaunchOrder order, std::size_t slots,
                 const std::function<void(const BlockTurns&)>& ended);

/// Fills `out`'s matmul, vector, special, sram and busiest from `profiles` (one per x of the grid)
/// for a launch of `heads` heads, `out.occupancy.concurrent` blocks at once on `sms` SMs (slot i on
/// SM i mod sms), in `order`. The same sums, in the same order, as the exact replay's (gpu_model.cpp).
void schedule_launch(const std::vector<BlockWork>& profiles, std::uint64_t heads, LaunchOrder order,
                     std::uint64_t sms, KernelPrediction& out);

}  // namespace iosim
