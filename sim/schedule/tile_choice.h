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
inline constexpr std::uint64_t kMinFreeSide = 16;  // one m16n8k16 MMA tile

/// Tiles for `schedule`: the user's request where given (checked; unset sides from `fallback`), or
/// `fallback` reduced per `shrink` until its plan fits `ctx.hardware.sm.sram_per_block`. A user's tile
/// that does not fit throws InputError naming footprint and limit; a reduced default appends a note.
[[nodiscard]] TileShape choose_tiles(std::string_view schedule, const ScheduleContext& ctx,
                                     TileShape fallback, Shrink shrink, const PlanFor& plan,
                                     std::vector<std::string>& notes);

}  // namespace iosim
