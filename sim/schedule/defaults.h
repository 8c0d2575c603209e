// Default tiles: the FlashAttention paper's formula, and the choices of FlashAttention-2's CUDA code
// (csrc/flash_attn/src/flash_{fwd,bwd}_launch_template.h and flash_api.cpp, sm80/sm90, no dropout).
#pragma once

#include <cstdint>

#include "sim/core/hardware.h"
#include "sim/core/problem.h"
#include "sim/schedule/schedule.h"
#include "sim/schedule/split_heuristic.h"

namespace iosim {

/// Algorithm 1 (and 4): B_c = ⌈M/4d⌉, B_r = min(B_c, d), M the SRAM per block in elements.
[[nodiscard]] TileShape paper_tiles(const Problem& p, const HardwareSpec& hw);

/// run_mha_fwd_hdim*: d ≤ 64 → 128 × 128; d ≤ 192 → 128 × 64; d ≤ 256 → 128 × 64 or 64 × 64 by SRAM.
/// Throws InputError for d > 256 unless the user gives a tile (`user_tiles`).
[[nodiscard]] TileShape fa2_forward_tiles(const Problem& p, const HardwareSpec& hw, bool user_tiles);

/// run_mha_bwd_hdim*: B_r (kBlockM) × B_c (kBlockN) by head dimension and SRAM per block.
[[nodiscard]] TileShape fa2_backward_tiles(const Problem& p, const HardwareSpec& hw, bool user_tiles);

/// run_mha_fwd_splitkv_dispatch: B_r = 64; B_c = 256 (d ≤ 64), 128 (d ≤ 128), 64 otherwise.
[[nodiscard]] TileShape fa2_splitkv_tiles(const Problem& p);


}  // namespace iosim
