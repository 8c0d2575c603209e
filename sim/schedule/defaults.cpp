#include "sim/schedule/defaults.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "sim/core/error.h"

namespace iosim {

namespace {

constexpr std::uint64_t KiB = 1024;

void require_known(const Problem& p, bool user_tiles, const char* what) {
  if (p.d > 256 && !user_tiles) {
    throw InputError(std::string(what) + ": FlashAttention-2 has no tile for d = " + std::to_string(p.d) +
                     " > 256; give --br and --bc");
  }
}

}  // namespace

TileShape paper_tiles(const Problem& p, const HardwareSpec& hw) {
  const std::uint64_t bc = std::max<std::uint64_t>(1, ceil_div(sram_elements(hw, p.dtype), 4 * p.d));
  return {std::max<std::uint64_t>(1, std::min(bc, p.d)), bc};
}

TileShape fa2_forward_tiles(const Problem& p, const HardwareSpec& hw, bool user_tiles) {
  require_known(p, user_tiles, "flash2");
  if (p.d <= 64) return {128, 128};
  if (p.d <= 192) return {128, 64};
  if (p.d <= 256) {
    // 128 × 64 where a block may take 2·d·(128 + 2·64) bytes and an SM has less than 4·d·(64 + 2·64).
    const bool big = hw.sm.sram_per_block.value >= 2 * 256 * (128 + 2 * 64) &&
                     hw.sm.sram_per_sm.value < 4 * 256 * (64 + 2 * 64);
    return big ? TileShape{128, 64} : TileShape{64, 64};
  }
  return {64, 64};
}

TileShape fa2_backward_tiles(const Problem& p, const HardwareSpec& hw, bool user_tiles) {
  require_known(p, user_tiles, "flash2");
  const std::uint64_t smem = hw.sm.sram_per_block.value;
  if (p.d <= 32) return {128, 128};
  if (p.d <= 64) return smem >= 144 * KiB ? TileShape{128, 128} : TileShape{64, 128};
  if (p.d <= 96) return {64, 128};
  if (p.d <= 128) return smem >= 144 * KiB ? TileShape{64, 128} : TileShape{64, 64};
  if (p.d <= 192) return {64, 64};
  if (p.d <= 256) return smem >= 144 * KiB ? TileShape{64, 64} : TileShape{64, 32};
  return {64, 64};
}

TileShape fa2_splitkv_tiles(const Problem& p) {
  return {64, p.d <= 64 ? 256u : (p.d <= 128 ? 128u : 64u)};
}

std::uint64_t fa2_num_splits(std::uint64_t blocks, std::uint64_t sm_slots, std::uint64_t kv_tiles,
                             std::uint64_t max_splits) {
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
