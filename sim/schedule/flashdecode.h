// What the flashdecode schedules (sim/schedule/flashdecode.cpp) and the CUDA decoding kernels
// (cuda/kernels/flashdecode.cuh) both need: the split count, from one function, so that the kernels
// run the schedule the model counts.
#pragma once

#include <cstdint>

#include "sim/core/problem.h"
#include "sim/schedule/schedule.h"

namespace iosim {

/// The K/V splits FlashAttention-2's heuristic (fa2_num_splits, 2 blocks per SM) picks for decoding
/// `p` with `tiles` on `sm_count` SMs. `packed`: a group's query heads share one block's rows
/// (blocks = batch · kv_heads · ⌈group·n / B_r⌉), else one block row set per query head
/// (batch · heads · ⌈n / B_r⌉).
[[nodiscard]] std::uint64_t flashdecode_splits(const Problem& p, TileShape tiles, std::uint64_t sm_count, bool packed);

}  // namespace iosim
