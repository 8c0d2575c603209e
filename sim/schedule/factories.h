// Constructors of the schedules, one per file; schedule_catalog() and make_schedule() use them.
// Internal to sim/schedule.
#pragma once

#include <memory>

#include "sim/schedule/schedule.h"

namespace iosim::detail {

std::unique_ptr<Schedule> make_naive(Pass pass, const ScheduleContext& ctx);
std::unique_ptr<Schedule> make_flash1(Pass pass, const ScheduleContext& ctx);
std::unique_ptr<Schedule> make_flash2(Pass pass, const ScheduleContext& ctx);

}  // namespace iosim::detail
