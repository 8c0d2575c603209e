// flash3's shared parts: what FlashAttention-3's Hopper kernels (Shah et al. 2024, arXiv 2407.08608;
// Dao-AILab/flash-attention hopper/) require of the GPU and the problem, their default tiles, and
// their warpgroups: one producer warpgroup (TMA loads) and 1-3 consumer warpgroups (wgmma), registers
// reallocated between them (setmaxnreg) as the family says (kernel_family.h, RegisterSplit).
// Internal to sim/schedule.
#pragma once

#include <cstdint>
#include <string>

#include "sim/core/hardware.h"
#include "sim/core/problem.h"
#include "sim/schedule/kernel_family.h"
#include "sim/schedule/schedule.h"

namespace iosim::detail {

/// wgmma's M: a consumer warpgroup's rows come in multiples of 64.
inline constexpr std::uint64_t kFa3GroupRows = 64;
/// Threads of a warpgroup.
inline constexpr std::uint32_t kFa3GroupThreads = 128;
/// Registers a consumer thread keeps besides its accumulator and operand fragments (addresses, loop
/// state, barrier phases): FlashAttention-3's producer warpgroup runs its whole loop in 24
/// (LoadRegisterRequirement with two consumer warpgroups). iosim's assumption, not fitted to ptxas.
inline constexpr double kFa3ReservedRegisters = 24;
/// Rows of one TMA copy of a paged K/V tile where pages are smaller than the tile: the kernel's box
/// (cuda/kernels/flash3/flash3_fwd.h, kPageBox), so its smallest page.
inline constexpr std::uint64_t kFa3PagedBoxRows = 16;

/// Store requests per sector of a tile stored straight from wgmma accumulators, two adjacent values a
/// thread a store, `elem` bytes each (iosim's flash3 backward stores dK and dV so). In the accumulator
/// layout lane ℓ of a warp holds, of each of its rows, columns 8·k + 2·(ℓ % 4) + {0, 1} for every n8
/// block k, one register pair per block: a store instruction writes, per row, one n8 block's 8
/// columns (the 4 lanes ℓ / 4 shares, 8 · elem bytes), so a sector of `sector_bytes` bytes holds
/// sector_bytes / (8 · elem) blocks, each written by another instruction (1 where a block fills a
/// sector or more).
[[nodiscard]] constexpr std::uint32_t wgmma_pair_store_requests(std::uint64_t elem, std::uint32_t sector_bytes) {
  constexpr std::uint64_t kBlockColumns = 8;  // the n8 block: 4 lanes × 2 values
  const std::uint64_t block_bytes = kBlockColumns * elem;
  return block_bytes >= sector_bytes ? 1 : static_cast<std::uint32_t>(sector_bytes / block_bytes);
}

/// Throws InputError unless `hw` has TMA and wgmma: sm_90 (Hopper; wgmma is sm_90a only, Blackwell
/// has tcgen05 instead), and the head dimension is one FlashAttention-3 runs (a multiple of 8, ≤ 256).
void require_hopper(const HardwareSpec& hw, const Problem& p);

/// tile_size_fwd_sm90 (hopper/tile_size.h), 16-bit types: d ≤ 64 → 192 × 192 (192 × 128 causal);
/// d ≤ 96 → 192 × 144; d ≤ 128 → 128 × 176 (128 × 128 causal); d ≤ 192 → 128 × 112 (V's head
/// dimension is d, above 128); d ≤ 256 → 128 × 80. fp8: 192 × 160, 192 × 128, 128 × 224, 128 × 160, 128 × 128.
[[nodiscard]] TileShape fa3_forward_tiles(const Problem& p);

/// MmaPV_is_RS of tile_size_fwd_sm90: P stays in registers for O += P V, except at d ≤ 64 without a
/// mask and at 64 < d ≤ 96 (16-bit types), where it is staged through shared memory.
[[nodiscard]] bool fa3_pv_from_registers(const Problem& p);

/// run_mha_bwd_hdim* for sm90 (hopper/flash_bwd_launch_template.h): B_r × B_c = 128 × 128 (d ≤ 64),
/// 64 × 128 (d ≤ 96), 80 × 128 (d ≤ 128; 64 × 128 causal), 64 × 96 (d ≤ 192), 64 × 80 (d ≤ 256).
[[nodiscard]] TileShape fa3_backward_tiles(const Problem& p);

/// The same launcher's Stages_dO (= Stages_dS_or_QSm80): 2 up to d = 128, 1 above.
[[nodiscard]] std::uint32_t fa3_backward_stages(const Problem& p);

/// The same launcher's NumMmaWarpGroups: 3 at 128 < d ≤ 192, else 2.
[[nodiscard]] std::uint32_t fa3_backward_consumers(const Problem& p);

/// A block's warpgroups.
struct Fa3Groups {
  std::uint32_t consumers = 0;
  RegisterSplit registers;
  [[nodiscard]] std::uint32_t threads() const { return (consumers + 1) * kFa3GroupThreads; }
  /// Registers per thread at launch: the block's register file as setmaxnreg splits it, averaged.
  [[nodiscard]] std::uint32_t launch_registers() const {
    return (registers.producer + consumers * registers.consumer) / (consumers + 1);
  }
  /// A block's launch with `smem` of shared memory, `stages` stages and TMA copies of `box_rows` rows.
  /// Registers by setmaxnreg (the family's split), not by fragments: fragment_registers stays 0.
  [[nodiscard]] LaunchShape launch(Bytes smem, std::uint32_t stages, std::uint64_t box_rows) const {
    LaunchShape l{threads(), launch_registers(), smem, stages, 0};
    l.tma_box_rows = box_rows;
    return l;
  }
};

/// The warpgroups of a block of `family` for `requested_warps` (0: `default_consumers` consumers),
/// checked: whole warpgroups, one producer, and a register split the family has. Throws InputError.
[[nodiscard]] Fa3Groups fa3_groups(const KernelFamily& family, std::uint32_t requested_warps,
                                   std::uint32_t default_consumers);

/// Throws InputError naming the tile and the registers when a consumer thread's `fragments` (fp32
/// accumulators and operands held in registers) plus kFa3ReservedRegisters exceed its budget.
void require_registers(const Fa3Groups& g, double fragments, TileShape t, const std::string& held);

}  // namespace iosim::detail
