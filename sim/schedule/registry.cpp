// The list of schedules, registered explicitly in one place.
#include <array>
#include <string>

#include "sim/core/error.h"
#include "sim/schedule/factories.h"

namespace iosim {

namespace {

using Factory = std::unique_ptr<Schedule> (*)(Pass, const ScheduleContext&);

struct Entry {
  ScheduleInfo info;
  Factory make;
};

constexpr std::array kEntries = {
    Entry{{"naive", "standard attention: S and P written to HBM and read back (Algorithm 0)"},
          &detail::make_naive},
    Entry{{"flash1", "FlashAttention, Algorithm 1: K/V outer loop, O, l, m read and written every step"},
          &detail::make_flash1},
    Entry{{"flash2", "FlashAttention-2: Q outer loop, one thread block per Q tile, O written once"},
          &detail::make_flash2},
};

constexpr std::array<ScheduleInfo, kEntries.size()> catalog() {
  std::array<ScheduleInfo, kEntries.size()> out{};
  for (std::size_t i = 0; i < kEntries.size(); ++i) out[i] = kEntries[i].info;
  return out;
}

constexpr auto kCatalog = catalog();

}  // namespace

std::span<const ScheduleInfo> schedule_catalog() { return kCatalog; }

std::unique_ptr<Schedule> make_schedule(std::string_view name, Pass pass, const ScheduleContext& ctx) {
  for (const Entry& e : kEntries) {
    if (e.info.name == name) return e.make(pass, ctx);
  }
  std::string known;
  for (const Entry& e : kEntries) known += (known.empty() ? "" : ", ") + std::string(e.info.name);
  throw InputError("unknown schedule '" + std::string(name) + "' (known: " + known + ")");
}

}  // namespace iosim
