// Choosing a schedule's tiles: the user's request, checked; or the schedule's default, halved until
// it fits the SRAM of one thread block, with a note saying so.
#pragma once

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

/// Tiles for `schedule`: `req` where given (both fields checked, the rest from `fallback`), or
/// `fallback` reduced until its plan fits `ctx.hardware.sm.sram_per_block`. A user's tile that does
/// not fit throws InputError naming footprint and limit; a reduced default appends a note.
[[nodiscard]] TileShape choose_tiles(std::string_view schedule, const ScheduleContext& ctx,
                                     TileShape fallback, const PlanFor& plan,
                                     std::vector<std::string>& notes);

}  // namespace iosim
