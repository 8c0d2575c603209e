// The list of schedules, registered explicitly in one place: a name, a summary, and a constructor
// per pass (nullptr where the schedule has no such pass).
#include <array>
#include <string>

#include "sim/core/error.h"
#include "sim/schedule/factories.h"

namespace iosim {

namespace {

using Factory = std::unique_ptr<Schedule> (*)(const ScheduleContext&);

struct Entry {
  ScheduleInfo info;
  Factory fwd;
  Factory bwd;
};

constexpr std::array kEntries = {
    Entry{{"naive", "standard attention: S and P written to HBM and read back (Algorithms 0 and 3)", true},
          &detail::make_naive_fwd, &detail::make_naive_bwd},
    Entry{{"flash1", "FlashAttention, Algorithms 1 and 4: K/V outer loop, O (dQ) read and written every step", true},
          &detail::make_flash1_fwd, &detail::make_flash1_bwd},
    Entry{{"flash2", "FlashAttention-2: one thread block per Q tile (forward), per K/V tile (backward)", true},
          &detail::make_flash2_fwd, &detail::make_flash2_bwd},
    Entry{{"flashdecode", "split-KV decoding (Flash-Decoding): a group's query heads packed as one block's rows, "
                         "K/V read once per KV head, split across blocks, then a combine pass"},
          &detail::make_flashdecode_fwd, nullptr},
    Entry{{"flashdecode-heads", "flashdecode with one block row set per query head: K/V read once per query head"},
          &detail::make_flashdecode_heads_fwd, nullptr},
    Entry{{"dtiled", "tiled attention that also tiles d, for SRAM below d² (Saha & Ye 2024)"},
          &detail::make_dtiled_fwd, nullptr},
    Entry{{"flash3", "FlashAttention-3 on Hopper (sm_90): warp-specialised, TMA-loaded K/V stages, wgmma, ping-pong "
                     "consumer warpgroups; flash2's traffic"},
          &detail::make_flash3_fwd, &detail::make_flash3_bwd},
};

constexpr std::array<ScheduleInfo, kEntries.size()> catalog() {
  std::array<ScheduleInfo, kEntries.size()> out{};
  for (std::size_t i = 0; i < kEntries.size(); ++i) out[i] = kEntries[i].info;
  return out;
}

constexpr auto kCatalog = catalog();

}  // namespace

std::span<const ScheduleInfo> schedule_catalog() { return kCatalog; }

bool has_pass(std::string_view name, Pass pass) {
  for (const Entry& e : kEntries) {
    if (e.info.name == name) return (pass == Pass::fwd ? e.fwd : e.bwd) != nullptr;
  }
  return false;
}

std::unique_ptr<Schedule> make_schedule(std::string_view name, Pass pass, const ScheduleContext& ctx) {
  for (const Entry& e : kEntries) {
    if (e.info.name != name) continue;
    const Factory f = pass == Pass::fwd ? e.fwd : e.bwd;
    if (f == nullptr) {
      throw InputError(std::string(name) + " has no " + (pass == Pass::fwd ? "forward" : "backward") + " pass");
    }
    return f(ctx);
  }
  std::string known;
  for (const Entry& e : kEntries) known += (known.empty() ? "" : ", ") + std::string(e.info.name);
  throw InputError("unknown schedule '" + std::string(name) + "' (known: " + known + ")");
}

}  // namespace iosim
