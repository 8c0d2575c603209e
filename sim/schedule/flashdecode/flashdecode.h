// What the flashdecode schedules (sim/schedule/flashdecode/flashdecode.cpp) and the CUDA decoding kernels
// (cuda/kernels/flashdecode.cuh) both need: the split count, from one function, so that the kernels
// run the schedule the model counts.
#pragma once

#include <cstdint>
#include <memory>

#include "sim/core/problem.h"
#include "sim/core/units.h"
#include "sim/schedule/schedule.h"
#include "sim/schedule/split_heuristic.h"

namespace iosim {

/// The K/V splits FlashAttention-2's heuristic (fa2_num_splits, 2 blocks per SM) picks for decoding
/// `p` with `tiles` on `sm_count` SMs. `packed`: a group's query heads share one block's rows
/// (blocks = batch · kv_heads · ⌈group·n / B_r⌉), else one block row set per query head
/// (batch · heads · ⌈n / B_r⌉). Inline: the CUDA module calls it without linking the simulator.
[[nodiscard]] inline std::uint64_t flashdecode_splits(const Problem& p, TileShape tiles, std::uint64_t sm_count,
                                                      bool packed) {
  const std::uint64_t rows = packed ? p.group() * p.n : p.n;
  const std::uint64_t blocks = p.batch * (packed ? p.kv_head_count() : p.heads) * ceil_div(rows, tiles.br);
  return fa2_num_splits(blocks, 2 * sm_count, ceil_div(p.n_kv, tiles.bc));
}

namespace detail {
/// flashdecode-heads' forward (flashdecode.cpp), which flash2's forward also runs where PyTorch's
/// FlashAttention-2 would split the K/V loop.
std::unique_ptr<Schedule> make_flashdecode_heads_fwd(const ScheduleContext& ctx);
}  // namespace detail

}  // namespace iosim
