// A launch's work that the L2 does not change: the whole grid scheduled over the slots from each
// block's step count, as both replays interleave blocks (a block of s steps holds its slot s + 1
// turns; a freed slot takes the next block in launch order, lower slots first), and the blocks'
// FLOPs and shared-memory bytes summed in the order they finish, per SM and in all.
#pragma once

#include <algorithm>
#include <cstdint>
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
  std::uint64_t x = 0;      ///< its x in the grid (its profile)
  std::size_t slot = 0;
  std::uint64_t start = 0, end = 0;
};

/// Walks the launch of `heads` heads of `profiles` (one per x) over `slots` slots: calls `ended` for
/// each block in the order the blocks end (by turn, lower slots first), which is also the order in
/// which the freed slots take the next block in launch order. Neither depends on the L2.
///
/// The running blocks wait in buckets by the turn they end, one per turn modulo (the most steps + 2):
/// a block that starts at turn t + 1 ends by t + 1 + the most steps, so no two pending turns share a
/// bucket. A bucket's slots are taken lowest first. (Every block is visited once, and every turn up
/// to the last: no priority queue.)
template <typename Ended>
void walk_launch(const std::vector<BlockWork>& profiles, std::uint64_t heads, LaunchOrder order, std::size_t slots,
                 Ended&& ended) {
  const std::uint64_t xs = profiles.size(), blocks = xs * heads;
  const std::size_t n = std::min<std::uint64_t>(slots, blocks);
  if (n == 0) return;
  std::uint64_t most = 0;
  for (const BlockWork& p : profiles) most = std::max(most, p.steps);
  const std::uint64_t period = most + 2;
  std::vector<std::vector<std::size_t>> ends(period);
  std::vector<BlockTurns> running(n);
  std::uint64_t launched = 0, x = 0, h = 0;  // the next block, its x and head
  const auto launch = [&](std::size_t i, std::uint64_t start, std::uint64_t bucket) {
    const std::uint64_t steps = profiles[x].steps;
    running[i] = {launched, x, i, start, start + steps};
    bucket += steps;
    ends[bucket >= period ? bucket - period : bucket].push_back(i);
    ++launched;
    if (order == LaunchOrder::x_major) {
      if (++x == xs) x = 0;
    } else if (++h == heads) {
      h = 0;
      ++x;
    }
  };
  for (std::size_t i = 0; i < n; ++i) launch(i, 0, 0);
  std::size_t pending = n;
  for (std::uint64_t turn = 0, bucket = 0; pending > 0; ++turn) {
    std::vector<std::size_t>& now = ends[bucket];
    if (++bucket == period) bucket = 0;  // now the bucket of turn + 1
    if (now.empty()) continue;
    if (!std::is_sorted(now.begin(), now.end())) std::sort(now.begin(), now.end());
    for (const std::size_t i : now) {
      const BlockTurns& t = running[i];
      ended(t);
      if (launched < blocks) {
        launch(i, turn + 1, bucket);
      } else {
        --pending;
      }
    }
    now.clear();
  }
}

/// Fills `out`'s matmul, vector, special, sram and busiest from `profiles` (one per x of the grid)
/// for a launch of `heads` heads, `out.occupancy.concurrent` blocks at once on `sms` SMs (slot i on
/// SM i mod sms), in `order`. The same sums, in the same order, as the exact replay's (gpu_model.cpp).
void schedule_launch(const std::vector<BlockWork>& profiles, std::uint64_t heads, LaunchOrder order,
                     std::uint64_t sms, KernelPrediction& out);

}  // namespace iosim
