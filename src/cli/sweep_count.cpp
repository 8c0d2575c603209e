#include "src/cli/sweep_count.h"

#include <algorithm>
#include <string>

#include "sim/core/error.h"
#include "sim/core/units.h"
#include "sim/tiles/search.h"
#include "src/cli/sweep_points.h"

namespace iosim::cli {

namespace {

/// A list's length as a factor: an empty list takes its one default.
template <class T>
std::uint64_t factor(const std::vector<T>& v) {
  return std::max<std::uint64_t>(1, v.size());
}

std::uint64_t block_count(const config::SweepBlock& b) {
  std::uint64_t problems = 0;
  for (const config::SweepProblem& p : b.problems) {
    std::uint64_t c = 1;
    for (std::uint64_t f : {factor(p.batch), factor(p.heads), factor(p.kv_heads), factor(p.n), factor(p.n_kv),
                            factor(p.d), factor(p.dtype), factor(p.mask), factor(p.window), factor(p.page_size),
                            factor(p.page_order), factor(p.pass)}) {
      c = checked_mul(c, f);
    }
    problems = checked_add(problems, c);
  }
  const std::uint64_t menu = TileSearchSpec{}.sizes.size() * TileSearchSpec{}.sizes.size();
  std::uint64_t tiles = 0;
  for (const std::string& t : b.tiles) {
    if (t == "search") {
      tiles = checked_add(tiles, 1);  // one point: the search tries the warps and stages itself
      continue;
    }
    tiles = checked_add(tiles, checked_mul(checked_mul(factor(b.warps), factor(b.stages)), t == "menu" ? menu : 1));
  }
  return checked_mul(checked_mul(checked_mul(b.hardware.size(), problems), b.schedules.size()), tiles);
}

/// A point held in memory: the struct, its key (about 400 bytes of text), its other strings and the
/// index that selects it; measured: 30,000 points of one block listed in 38 MB, 6 MB of it the program.
constexpr double kBytesPerPoint = sizeof(SweepPoint) + 800.0;
/// Building, sorting and checking one point (check_point resolves the point's hardware and problem
/// and builds its schedule): 30,000 points listed in 34 s on the loaded 2-core development machine.
constexpr double kSecondsPerPoint = 1.2e-3;

}  // namespace

std::uint64_t point_count_bound(const config::SweepSpec& spec) {
  try {
    std::uint64_t total = 0;
    for (const config::SweepBlock& b : spec.blocks) total = checked_add(total, block_count(b));
    return total;
  } catch (const OverflowError&) {
    throw InputError(spec.file + ": its lists multiply to more than 2^64 points; split the sweep into smaller ones");
  }
}

WorkEstimate sweep_expansion_estimate(std::uint64_t points) {
  WorkEstimate e;
  const double n = static_cast<double>(points);
  e.seconds = n * kSecondsPerPoint;
  e.slowest = "building and checking the points";
  e.slowest_seconds = e.seconds;
  e.bytes = static_cast<std::uint64_t>(std::min(n * kBytesPerPoint, 1.8e19)) + WorkCosts{}.base_bytes;
  e.largest = "holding the points";
  return e;
}

void bound_points(const config::SweepSpec& spec, const Limits& limits) {
  const std::uint64_t n = point_count_bound(spec);
  try {
    enforce(sweep_expansion_estimate(n), limits);
  } catch (const InputError& e) {
    throw InputError(spec.file + ": its lists multiply to " + std::to_string(n) + " points (before equal ones merge); " +
                     e.what() + ", or split the sweep");
  }
}

}  // namespace iosim::cli
