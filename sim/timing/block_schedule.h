// How a grid's blocks share the SMs over time: the waves, the last wave's tail, blocks that differ.
//
// The hardware's block scheduler starts blocks in launch order, one per SM in turn until each holds
// as many as its occupancy allows, then gives each finished block's place to the next. Blocks on
// one SM share it: with b resident, each advances at 1 / T(b) of its work per cycle, where T(b) is
// the block's time at b blocks per SM (sm_model.h). So a last, partial wave runs its fewer blocks
// faster where they were issue-bound and no faster where they were latency-bound, and a causal grid's
// long and short blocks pack as they would. An event simulation over block completions: O(blocks ×
// blocks per SM × log SMs).
#pragma once

#include <cstdint>
#include <functional>

namespace iosim {

struct GridTiming {
  double makespan = 0;  ///< cycles from the first block's start to the last block's end
  double ideal = 0;     ///< cycles if every SM were full to the end: Σ T(b_max) / (b_max · SMs)
};

/// `blocks` blocks in launch order; block i is of profile `profile_of(i)`, whose time at b resident
/// blocks is `time_of(profile, b)` cycles (b from 1 to `per_sm`).
[[nodiscard]] GridTiming schedule_blocks(std::uint64_t blocks, std::uint32_t sms, std::uint32_t per_sm,
                                         const std::function<std::uint32_t(std::uint64_t)>& profile_of,
                                         const std::function<double(std::uint32_t, std::uint32_t)>& time_of);

}  // namespace iosim
