// The catalog: every schedule's entry, from the one list in schedules.def, in its order. Alone in its
// file so that a test program can compile it again with a list of its own (IOSIM_SCHEDULE_LIST: the
// product's list and one more line, tests/example_schedule/schedules.def); its object then defines
// schedule_catalog(), and the linker takes no catalog from libiosim_sim.a.
#include <array>

#include "sim/schedule/registry.h"

#ifndef IOSIM_SCHEDULE_LIST
#define IOSIM_SCHEDULE_LIST "sim/schedule/schedules.def"
#endif

namespace iosim {

// Each schedule's folder defines its entry (sim/schedule/<name>/register.cpp).
#define IOSIM_SCHEDULE(name) ScheduleEntry register_##name();
#include IOSIM_SCHEDULE_LIST
#undef IOSIM_SCHEDULE

std::span<const ScheduleEntry> schedule_catalog() {
  // Built on first use, so that no static initialiser depends on another file's.
  static const std::array kEntries = {
#define IOSIM_SCHEDULE(name) register_##name(),
#include IOSIM_SCHEDULE_LIST
#undef IOSIM_SCHEDULE
  };
  return kEntries;
}

}  // namespace iosim
