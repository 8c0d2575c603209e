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

}  // namespace iosim
