// The registry's lookups over the catalog (catalog.cpp expands the list in schedules.def; registry.h
// says what an entry holds; each schedule's folder defines its own).
#include "sim/schedule/registry.h"

#include <string>

#include "sim/core/error.h"

namespace iosim {

const ScheduleEntry* find_schedule(std::string_view name) {
  return first_schedule([&](const ScheduleEntry& e) { return e.name == name; });
}

const ScheduleEntry& schedule_entry(std::string_view name) {
  if (const ScheduleEntry* e = find_schedule(name)) return *e;
  throw InputError("unknown schedule '" + std::string(name) + "' (known: " +
                   schedule_names([](const ScheduleEntry&) { return true; }, ", ", ", ") + ")");
}

const CudaKernels* cuda_kernels(std::string_view schedule) {
  const ScheduleEntry* e = find_schedule(schedule);
  return e != nullptr && e->cuda ? &*e->cuda : nullptr;
}

bool has_pass(std::string_view name, Pass pass) {
  const ScheduleEntry* e = find_schedule(name);
  return e != nullptr && e->factory(pass) != nullptr;
}

std::unique_ptr<Schedule> make_schedule(std::string_view name, Pass pass, const ScheduleContext& ctx) {
  const ScheduleEntry& e = schedule_entry(name);
  const ScheduleFactory f = e.factory(pass);
  if (f == nullptr) {
    throw InputError(std::string(name) + " has no " + (pass == Pass::fwd ? "forward" : "backward") + " pass");
  }
  return f(ctx);
}

}  // namespace iosim
