// How many points a sweep file makes, counted from its lists before any point is built: a file of a
// few lines can multiply to 10^9 points or past 2^64, which must be refused before it takes the memory.
#pragma once

#include <cstdint>

#include "src/cli/limits.h"
#include "src/config/sweep_spec.h"

namespace iosim::cli {

/// At most how many points expand(spec) builds (tiles: menu counted as every tile size it may keep),
/// before equal keys are merged. Throws InputError when the count leaves 64 bits.
[[nodiscard]] std::uint64_t point_count_bound(const config::SweepSpec& spec);

/// What listing and checking `points` points takes, for --max-memory and --max-time.
[[nodiscard]] WorkEstimate sweep_expansion_estimate(std::uint64_t points);

/// Throws InputError, one line with the count, when the points of `spec` would take more memory or
/// time to build and check than `limits` allow.
void bound_points(const config::SweepSpec& spec, const Limits& limits);

}  // namespace iosim::cli
