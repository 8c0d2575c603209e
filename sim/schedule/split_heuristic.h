// FlashAttention-2's split-KV heuristic (flash_api.cpp, num_splits_heuristic), header-only so that the
// CUDA module (cuda/kernels/decode_plan.cpp) calls the very function the model calls without linking
// the simulator library into the shared module.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "sim/core/units.h"

namespace iosim {

/// num_splits_heuristic: the fewest splits of the K/V sequence whose wave efficiency is within 85% of
/// the best, or 1 when the blocks already fill 80% of the SMs. `sm_slots` is SMs × 2 in the original
/// (128-thread blocks, two per SM).
[[nodiscard]] inline std::uint64_t fa2_num_splits(std::uint64_t blocks, std::uint64_t sm_slots, std::uint64_t kv_tiles,
                                                  std::uint64_t max_splits = 128) {
  if (static_cast<double>(blocks) >= 0.8 * static_cast<double>(sm_slots)) return 1;
  max_splits = std::min({max_splits, sm_slots, kv_tiles});
  // A split count is eligible when it changes the tiles per split (12 splits of 64 tiles are 11).
  const auto eligible = [&](std::uint64_t s) { return s == 1 || ceil_div(kv_tiles, s) != ceil_div(kv_tiles, s - 1); };
  std::vector<double> eff(max_splits + 1, 0.0);
  double best = 0;
  for (std::uint64_t s = 1; s <= max_splits; ++s) {
    if (!eligible(s)) continue;
    const double waves = static_cast<double>(blocks * s) / static_cast<double>(sm_slots);
    eff[s] = waves / std::ceil(waves);
    best = std::max(best, eff[s]);
  }
  for (std::uint64_t s = 1; s <= max_splits; ++s) {
    if (eligible(s) && eff[s] >= 0.85 * best) return s;
  }
  return 1;
}

}  // namespace iosim
