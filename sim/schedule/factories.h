// Constructors of the schedules, one per file; schedule_catalog() and make_schedule() use them.
// Internal to sim/schedule.
#pragma once

#include <memory>

#include "sim/schedule/schedule.h"

namespace iosim::detail {

std::unique_ptr<Schedule> make_naive_fwd(const ScheduleContext& ctx);
std::unique_ptr<Schedule> make_naive_bwd(const ScheduleContext& ctx);
std::unique_ptr<Schedule> make_eager_fwd(const ScheduleContext& ctx);  // naive_fwd.cpp
std::unique_ptr<Schedule> make_eager_bwd(const ScheduleContext& ctx);  // naive_bwd.cpp
std::unique_ptr<Schedule> make_flash1_fwd(const ScheduleContext& ctx);
std::unique_ptr<Schedule> make_flash1_bwd(const ScheduleContext& ctx);
std::unique_ptr<Schedule> make_flash2_fwd(const ScheduleContext& ctx);
std::unique_ptr<Schedule> make_flash2_bwd(const ScheduleContext& ctx);
/// flash2's backward as the project's Triton kernels run it (make_flash2_bwd's choice under --kernels triton).
std::unique_ptr<Schedule> make_flash2_bwd_triton(const ScheduleContext& ctx);
std::unique_ptr<Schedule> make_flashdecode_fwd(const ScheduleContext& ctx);
std::unique_ptr<Schedule> make_flashdecode_heads_fwd(const ScheduleContext& ctx);
std::unique_ptr<Schedule> make_dtiled_fwd(const ScheduleContext& ctx);
std::unique_ptr<Schedule> make_flash3_fwd(const ScheduleContext& ctx);
std::unique_ptr<Schedule> make_flash3_bwd(const ScheduleContext& ctx);

}  // namespace iosim::detail
