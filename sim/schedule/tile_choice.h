// Choosing a schedule's tiles: the user's request, checked; or the schedule's default, halved until
// it fits the SRAM of one thread block, with a note saying so.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/units.h"
#include "sim/schedule/schedule.h"

namespace iosim {

/// "12.5 KiB".
[[nodiscard]] std::string kib(Bytes b);

/// "Q_i 8.0 KiB + K_j 16.0 KiB" over the shared-memory tiles of `phase`.
[[nodiscard]] std::string describe_shared(const SramPhase& phase);

/// The SRAM plan a schedule would have with tiles `t`.
using PlanFor = std::function<SramPlan(TileShape)>;

/// Which side of a default tile gives way first when it does not fit: the one whose size does not
/// change the schedule's HBM traffic (B_r for flash1, whose traffic depends on T_c only; B_c for
/// flash2's forward, whose traffic depends on T_r only). It is halved down to kMinFreeSide; then the
/// other side takes the largest value that fits.
enum class Shrink : std::uint8_t { rows_first, cols_first };

/// A schedule's default tile and where it comes from, as the report says it (`tile.source` in JSON).
struct DefaultTile {
  TileShape tile;
  std::string_view source;
};

/// The sources a report names.
namespace tile_source {
inline constexpr std::string_view kUser = "--br/--bc";
inline constexpr std::string_view kMenu = "kernel menu";      ///< cuda/kernels/menu.csv (kernel_menu.h)
inline constexpr std::string_view kPaper = "paper";            ///< FlashAttention's B_c = ⌈M/4d⌉, B_r = min(B_c, d)
inline constexpr std::string_view kFa2 = "FlashAttention-2";  ///< its CUDA code's choice (defaults.h)
inline constexpr std::string_view kFa3 = "FlashAttention-3";  ///< its Hopper code's choice (flash3.h)
inline constexpr std::string_view kGemm = "GEMM";              ///< the GEMMs' output tile
inline constexpr std::string_view kDtiled = "d-tiled";         ///< B_r = B_c = ⌊√(M/5)⌋
}  // namespace tile_source
inline constexpr std::uint64_t kMinFreeSide = 16;  // one m16n8k16 MMA tile

/// Tiles for `schedule`: the user's request where given (checked; unset sides from `fallback`), or
/// `fallback` reduced per `shrink` until its plan fits `ctx.hardware.sm.sram_per_block`. A user's tile
/// that does not fit throws InputError naming footprint and limit; a reduced default appends a note.
/// `source` is set to where the tile came from: tile_source::kUser, or the fallback's.
[[nodiscard]] TileShape choose_tiles(std::string_view schedule, const ScheduleContext& ctx,
                                     const DefaultTile& fallback, Shrink shrink, const PlanFor& plan,
                                     std::vector<std::string>& notes, std::string_view& source);

}  // namespace iosim
