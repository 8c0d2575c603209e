#include "sim/timing/block_schedule.h"

#include <algorithm>
#include <queue>
#include <vector>

namespace iosim {

namespace {

struct Resident {
  std::uint32_t profile = 0;
  double left = 1;  ///< fraction of the block's work still to do
};

struct Sm {
  std::vector<Resident> blocks;
  double since = 0;        ///< time of the last update of `left`
  std::uint64_t version = 0;
};

struct Event {
  double at;
  std::uint32_t sm;
  std::uint64_t version;
  bool operator>(const Event& o) const { return at > o.at || (at == o.at && sm > o.sm); }
};

}  // namespace

GridTiming schedule_blocks(std::uint64_t blocks, std::uint32_t sms, std::uint32_t per_sm,
                           const std::function<std::uint32_t(std::uint64_t)>& profile_of,
                           const std::function<double(std::uint32_t, std::uint32_t)>& time_of) {
  GridTiming out;
  if (blocks == 0 || sms == 0 || per_sm == 0) return out;
  for (std::uint64_t i = 0; i < blocks; ++i) out.ideal += time_of(profile_of(i), per_sm);
  out.ideal /= static_cast<double>(per_sm) * sms;

  std::vector<Sm> sm(sms);
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events;
  std::uint64_t next = 0;
  // The first blocks go one per SM in turn until every SM is full.
  for (std::uint32_t round = 0; round < per_sm && next < blocks; ++round) {
    for (std::uint32_t s = 0; s < sms && next < blocks; ++s) sm[s].blocks.push_back({profile_of(next++), 1});
  }
  const auto schedule_next = [&](std::uint32_t s, double now) {
    Sm& m = sm[s];
    ++m.version;
    if (m.blocks.empty()) return;
    const auto b = static_cast<std::uint32_t>(m.blocks.size());
    double soonest = -1;
    for (const Resident& r : m.blocks) {
      const double t = r.left * time_of(r.profile, b);
      if (soonest < 0 || t < soonest) soonest = t;
    }
    events.push({now + soonest, s, m.version});
  };
  for (std::uint32_t s = 0; s < sms; ++s) schedule_next(s, 0);
  std::vector<std::uint32_t> freed;
  while (!events.empty()) {
    // Every SM that finishes a block at this moment, then the next blocks to the emptiest of them
    // (the block scheduler spreads blocks over SMs with room rather than filling one).
    const double now = events.top().at;
    freed.clear();
    while (!events.empty() && events.top().at == now) {
      const Event e = events.top();
      events.pop();
      Sm& m = sm[e.sm];
      if (e.version != m.version) continue;
      const auto b = static_cast<std::uint32_t>(m.blocks.size());
      const double dt = now - m.since;
      for (Resident& r : m.blocks) r.left -= dt / time_of(r.profile, b);
      m.since = now;
      // The block(s) that finished now; relative slack for rounding.
      std::erase_if(m.blocks, [](const Resident& r) { return r.left <= 1e-9; });
      freed.push_back(e.sm);
    }
    if (freed.empty()) continue;
    out.makespan = std::max(out.makespan, now);
    while (next < blocks) {
      const auto emptiest = std::min_element(freed.begin(), freed.end(), [&](std::uint32_t a, std::uint32_t b) {
        return sm[a].blocks.size() < sm[b].blocks.size();
      });
      if (sm[*emptiest].blocks.size() >= per_sm) break;
      sm[*emptiest].blocks.push_back({profile_of(next++), 1});
    }
    for (std::uint32_t s : freed) schedule_next(s, now);
  }
  return out;
}

}  // namespace iosim
