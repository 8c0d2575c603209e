// The design's part 2 (results/long-context-profile-2026-12-06.md, "A design …"): the exact L2 replayed
// on some rounds only. A round is one step of every running block (l2_analytic_stream.h). The pass
// cycles through three phases:
//   count   W rounds replayed through the L2 and counted as they are; at the end of each window, its
//           DRAM (and fabric) read sectors per read sector asked, by tensor. When the window's overall
//           rate is within `tol` (relative) of the previous counted window's, the walk is taken as
//           stationary and the next R rounds are skipped (R doubles while the checks keep agreeing,
//           from W up to `max_skip`; back to W when one does not).
//   skip    R rounds walked, not replayed: their tiles' read sectors times the last window's rates by
//           tensor (a tensor absent from the window: its rate over all counted rounds); their stores
//           go to DRAM as written (a store's sectors are written back once, as the flush at the end
//           would; exact while no sector is stored twice, as in flash2 forward). The skip and its
//           rewarm end before the next change of the launch (change_rounds: a block of another head,
//           or the kernel's last block, launched), so that the L2 a change meets has been rebuilt by
//           a replay: a new head's blocks change how many running blocks share each K/V line, and
//           lines loaded in one wave are read by the next (a head split between waves).
//   rewarm  rounds replayed through the L2 (which holds the lines of before the skip) but counted at
//           the window's rates, until they have read twice the L2's capacity from DRAM (the L2 refilled
//           twice over: what it holds is then what the rounds before would have left); then count.
//           Measured in sectors asked instead, a rewarm is far too short where many blocks share
//           each line (results/l2-analytic-part2-2026-12-07.md).
// Round-skipping's reach is thus one stretch between launch changes: within a head's launch (x-major).
// At the end the L2 is flushed (as predict does) and DRAM writes are the replay's plus the skipped stores.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <tuple>
#include <vector>

#include "bench/l2_analytic_stream.h"
#include "sim/memory/dram.h"
#include "sim/memory/memory_level.h"

namespace iosim::lab {

struct WindowOptions {
  std::uint64_t window = 8;      ///< W: rounds a counted window
  double tol = 0.01;             ///< stationary when two windows' rates differ by at most this (relative)
  std::uint64_t max_skip = 1024; ///< R at most
  double rewarm_capacities = 2;  ///< a rewarm reads this many times the L2's capacity from DRAM
};

struct WindowCounts {
  double dram_read_sectors = 0, dram_write_sectors = 0, fabric_read_sectors = 0;
  /// The same reads with each skip (and its rewarm) at the mean of the windows before and after it,
  /// by tensor (a trapezoid where the above takes the window before: a trend in the rates, as the
  /// launch's mix of blocks drifts, is then followed rather than lagged).
  double dram_read_sectors_mean = 0, fabric_read_sectors_mean = 0;
  std::uint64_t rounds_counted = 0, rounds_rewarm = 0, rounds_skipped = 0, skips = 0;
};

/// Per tensor: read sectors asked, and the DRAM and fabric read sectors they caused.
struct TensorRates {
  static constexpr std::size_t kTensors = 32;
  std::array<double, kTensors> asked{}, dram{}, fabric{};
  void add(Tensor t, double a, double d, double f) {
    const auto i = static_cast<std::size_t>(t);
    asked[i] += a;
    dram[i] += d;
    fabric[i] += f;
  }
  [[nodiscard]] double overall() const {
    double a = 0, d = 0;
    for (std::size_t i = 0; i < kTensors; ++i) a += asked[i], d += dram[i];
    return a == 0 ? 0 : d / a;
  }
};

/// For each round of the stream, the first round at or after it in which the launch changes: a block
/// of another head (or kernel) is launched, or the kernel's last block is. Walks the schedule alone
/// (tile mode, no L2): the pre-pass that tells a skip where it must stop.
inline std::vector<std::uint64_t> change_rounds(Stream stream) {
  std::vector<bool> change;
  auto before = std::tuple{stream.launching(), stream.all_launched()};
  while (stream.round(false, [](const Req&) {})) {
    const auto after = std::tuple{stream.launching(), stream.all_launched()};
    change.push_back(after != before);
    before = after;
  }
  std::vector<std::uint64_t> next(change.size() + 1, change.size());
  for (std::size_t r = change.size(); r-- > 0;) next[r] = change[r] ? r : next[r + 1];
  return next;
}

/// Runs the pass on `stream` with `l2` over `dram` (both cold). `l2_sectors`: the L2's capacity in sectors.
inline WindowCounts window_pass(Stream& stream, MemoryLevel& l2, Dram& dram, std::uint64_t l2_sectors,
                                const WindowOptions& o) {
  const std::vector<std::uint64_t> next_change = change_rounds(stream);
  enum class Phase { count, skip, rewarm } phase = Phase::count;
  WindowCounts c;
  TensorRates win, all, used;
  double prev = NAN;
  std::uint64_t round = 0, in_phase = 0, skip = o.window, cur = 0;
  double rewarm_filled = 0, skipped_writes = 0;
  const double rewarm_sectors = o.rewarm_capacities * static_cast<double>(l2_sectors);
  // DRAM and fabric reads a read sector of tensor i, by `r`'s rates (a tensor absent there: all
  // counted rounds'; never counted: a miss).
  const auto rate = [&](const TensorRates& r, std::size_t i) {
    const TensorRates& u = r.asked[i] > 0 ? r : all;
    if (u.asked[i] == 0) return std::pair{1.0, 0.0};
    return std::pair{u.dram[i] / u.asked[i], u.fabric[i] / u.asked[i]};
  };
  std::array<double, TensorRates::kTensors> pending{};  // read sectors of skips and rewarms not yet settled
  const auto at_rate = [&](const Req& q) {
    const auto i = static_cast<std::size_t>(q.tensor);
    pending[i] += static_cast<double>(q.sectors);
    const auto [d, f] = rate(used, i);
    const auto n = static_cast<double>(q.sectors);
    return std::pair{n * d, n * f};
  };
  // The pending sectors at the mean of the rates before (`used`) and after (`after`, or `used` at the end).
  const auto settle = [&](const TensorRates& after) {
    for (std::size_t i = 0; i < pending.size(); ++i) {
      if (pending[i] == 0) continue;
      const auto [d0, f0] = rate(used, i);
      const auto [d1, f1] = rate(after, i);
      c.dram_read_sectors_mean += pending[i] * (d0 + d1) / 2;
      c.fabric_read_sectors_mean += pending[i] * (f0 + f1) / 2;
      pending[i] = 0;
    }
  };
  const auto replay = [&](const Req& q) {
    if (q.r != Request::read) {
      l2.request(q.r, q.line, q.mask, q.sm);
      return;
    }
    const std::uint64_t d0 = dram.counters().read_sectors, f0 = l2.counters().fabric_read_sectors;
    l2.request(q.r, q.line, q.mask, q.sm);
    const auto d = static_cast<double>(dram.counters().read_sectors - d0);
    const auto f = static_cast<double>(l2.counters().fabric_read_sectors - f0);
    const auto s = static_cast<double>(q.sectors);
    if (phase == Phase::count) {
      c.dram_read_sectors += d, c.fabric_read_sectors += f;
      c.dram_read_sectors_mean += d, c.fabric_read_sectors_mean += f;
      win.add(q.tensor, s, d, f);
      all.add(q.tensor, s, d, f);
    } else {
      rewarm_filled += d;
      const auto [rd, rf] = at_rate(q);
      c.dram_read_sectors += rd, c.fabric_read_sectors += rf;
    }
  };
  const auto walk = [&](const Req& q) {
    if (q.r != Request::read) {
      skipped_writes += static_cast<double>(q.sectors);
      return;
    }
    const auto [rd, rf] = at_rate(q);
    c.dram_read_sectors += rd, c.fabric_read_sectors += rf;
  };
  for (;; ++round) {
    if (phase == Phase::skip && in_phase == cur) phase = Phase::rewarm, in_phase = 0, rewarm_filled = 0;
    if (phase == Phase::skip) {
      if (!stream.round(false, walk)) break;
      ++c.rounds_skipped, ++in_phase;
      continue;
    }
    if (!stream.round(true, replay)) break;
    ++in_phase;
    if (phase == Phase::rewarm) {
      ++c.rounds_rewarm;
      if (rewarm_filled >= rewarm_sectors) phase = Phase::count, in_phase = 0;
      continue;
    }
    ++c.rounds_counted;
    if (in_phase < o.window) continue;
    settle(win);
    const double now = win.overall();
    const bool steady = !std::isnan(prev) && std::abs(now - prev) <= o.tol * std::max(now, prev);
    prev = now;
    in_phase = 0;
    if (!steady) skip = o.window;
    if (steady) {
      // The skip and its rewarm (at the window's DRAM reads a round) end before the launch next changes.
      double filled = 0;
      for (double a : win.dram) filled += a;
      const double per_round = filled / static_cast<double>(o.window);
      const auto rewarm_rounds = static_cast<std::uint64_t>(std::ceil(rewarm_sectors / std::max(per_round, 1.0)));
      const std::uint64_t room = next_change[round + 1] - (round + 1);  // rounds before the change round
      // A skip is at least as long as its rewarm: a rewarm counted at rates for longer than the skip
      // saves nothing and extrapolates across more rounds than the skip (where the rate drifts, as
      // where a long causal head starts to thrash, that was +2.2% on h200 n 131072).
      if (room > 2 * rewarm_rounds) {
        used = win;
        cur = std::min(std::max(skip, rewarm_rounds), room - rewarm_rounds);
        skip = std::min(2 * skip, o.max_skip);
        phase = Phase::skip;
        ++c.skips;
      }
    }
    win = TensorRates{};
  }
  settle(used);
  l2.flush();
  c.dram_write_sectors = static_cast<double>(dram.counters().write_sectors) + skipped_writes;
  return c;
}

}  // namespace iosim::lab
