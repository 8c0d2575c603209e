// A sweep's points: the expansion of a sweep file (src/config/sweep_spec.h) into single runs, each
// with a key that names it, in one canonical order; how one point is checked and run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "src/cli/limits.h"
#include "src/cli/problem_flags.h"
#include "src/config/sweep_spec.h"

namespace iosim::cli {

/// What the point runs: the schedule's default tile, one tile, or the tile search (`iosim tiles`).
enum class PointTile : std::uint8_t { default_tile, fixed, search };

/// One run of the program: `iosim -c HW --n … --schedule S [--br --bc] -f json`, or with a tile
/// search `iosim tiles -c HW … -f json`. Its record is that JSON with `key` in front.
struct SweepPoint {
  std::string hardware;
  std::uint64_t batch = 1, heads = 1;
  std::uint64_t kv_heads = 0;  ///< 0: not given (= heads)
  std::uint64_t n = 0;
  std::uint64_t n_kv = 0;      ///< 0: not given (= n)
  std::uint64_t d = 0;
  std::string dtype = "fp16";
  std::string mask = "none";
  std::uint64_t window = 0;  ///< 0: no sliding window
  std::uint64_t page_size = 0;  ///< 0: contiguous K/V
  std::string page_order;       ///< with page_size: contiguous, random or a seed; empty: contiguous
  std::string pass = "fwd";
  std::string schedule;
  PointTile tile_kind = PointTile::default_tile;
  std::uint64_t br = 0, bc = 0;  ///< PointTile::fixed
  std::uint64_t warps = 0, stages = 0, splits = 0;  ///< 0: the schedule's default
  std::uint64_t top = 0;       ///< PointTile::search: how many of the ranking its record keeps
  bool predict = false;
  std::string l2 = "fast", l2_policy = "lru", launch_order = "x";
  /// One JSON object on one line, fields in a fixed order: everything above that decides the record
  /// (kv_heads and n_kv resolved). Equal keys, equal records.
  std::string key;
};

/// Every point of `spec`: each block's product, tiles: menu resolved to the tiles that fit, points with
/// equal keys once, sorted by key (key_less). Throws InputError on a config, scenario or schedule
/// that cannot be used. The same file gives the same list on every machine with the same configs.
[[nodiscard]] std::vector<SweepPoint> expand(const config::SweepSpec& spec);

/// The command-line flags of the point's run.
[[nodiscard]] ProblemFlags flags_of(const SweepPoint& p);

/// Throws InputError, one line naming the point, when it cannot run (a tile that does not fit, a pass
/// the schedule lacks, an estimate over `limits`): what run_point() would refuse, in microseconds.
void check_point(const SweepPoint& p, const Limits& limits);

/// Runs the point: its record, one line ending in '\n'.
[[nodiscard]] std::string run_point(const SweepPoint& p, const Limits& limits);

}  // namespace iosim::cli
