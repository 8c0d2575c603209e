// `iosim tiles`: every tile shape, warp count and pipeline depth of a tiled schedule, the infeasible
// ones rejected with their reason, the rest ranked by the GPU model's predicted time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/gpu/gpu_model.h"
#include "sim/schedule/schedule.h"
#include "sim/timing/time_model.h"

namespace iosim {

struct TileSearchSpec {
  std::string schedule = "flash2";
  Pass pass = Pass::fwd;
  std::vector<std::uint64_t> sizes{16, 32, 64, 128, 256};  ///< for B_r and B_c
  std::vector<std::uint32_t> stages{1, 2, 3, 4};
  std::vector<std::uint32_t> warps{4, 8};
  GpuModelOptions gpu;
  unsigned threads = 0;  ///< host threads simulating candidates; 0 = all cores
  /// Replay the L2 once for candidates whose replays are the same (sim/gpu/replay_input.h: the same
  /// blocks and as many at once, e.g. warps or stages alone differ); false: once per candidate. The
  /// results are the same either way (tests/550-tiles.cpp).
  bool share_replays = true;
};

inline constexpr std::uint64_t kRowsPerWarp = 16;  ///< an m16n8k16 MMA's rows: the least a warp can own

struct TileCandidate {
  TileShape tiles;
  KernelRequest kernel;
  std::string rejected;  ///< "shared memory: …", "registers: …", "threads: …"; empty when it runs
  LaunchShape launch;    ///< of the schedule's main kernel
  Occupancy occupancy;
  Prediction predicted;  ///< cold L2
  TimePrediction time;
};

/// Every combination of `spec`, feasible ones first by predicted time (fastest first), then the
/// rejected ones in enumeration order. Throws InputError when the schedule has no such choices.
[[nodiscard]] std::vector<TileCandidate> search_tiles(const ScheduleContext& base, const TileSearchSpec& spec);

}  // namespace iosim
