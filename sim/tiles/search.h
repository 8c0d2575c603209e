// `iosim tiles`: every tile shape, warp count and pipeline depth of a tiled schedule, the infeasible
// ones rejected with their reason, the rest ranked by the GPU model's predicted time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/gpu/gpu_model.h"
#include "sim/schedule/compiled_kernel.h"
#include "sim/schedule/schedule.h"
#include "sim/timing/time_model.h"

namespace iosim {

/// The schedule `iosim tiles` searches when none is named: the registry's tiles_default entry.
[[nodiscard]] std::string default_tile_schedule();

struct TileSearchSpec {
  std::string schedule = default_tile_schedule();
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
  /// Whose kernels are priced (kernel_source.h). With KernelSource::triton each candidate is priced from
  /// its compiled record in `compiled` (the same B_r = block_m, B_c = block_n, warps and stages); a
  /// record with an error, or whose registers or shared memory would not launch, rejects its candidate
  /// with that reason.
  KernelSource source = KernelSource::iosim;
  std::vector<std::shared_ptr<const CompiledKernel>> compiled;
};

/// The Triton menu `iosim tiles --kernels triton` searches (flash2's forward): BLOCK_M, BLOCK_N in
/// {32, 64, 128, 256}, num_warps 4 or 8, num_stages 2 or 3.
[[nodiscard]] TileSearchSpec triton_tile_search_defaults(const std::string& schedule, Pass pass);

inline constexpr std::uint64_t kRowsPerWarp = 16;  ///< an m16n8k16 MMA's rows: the least a warp can own

/// The search's defaults for `schedule`: TileSearchSpec's, or for a warpgroup schedule (the registry's
/// caps.warpgroups: flash3; whole warpgroups, B_r in multiples of 64, B_c of 16) its own sizes, warps
/// and stages.
[[nodiscard]] TileSearchSpec tile_search_defaults(const std::string& schedule, Pass pass);

/// Why the warps of `s`'s main kernel cannot split its products the way its kernel family's kernels
/// do ("threads: …"), or "" when they can (and for a warpgroup schedule, which checks its warpgroups'
/// rows itself, and a family without products):
///   rows (the forwards, FlashAttention-2's and FlashAttention's): each warp owns kRowsPerWarp-row
///        slices of B_r;
///   grid (the backwards, cuda/kernels/flash_bwd_common.cuh): the warps tile each of S and dP
///        (B_r × B_c), dK and dV (B_c × d) and dQ (B_r × d) as common.cuh's warp_grid does, a grid of
///        warps each owning whole m16 tiles and an even number, at least 2, of n8 tiles.
[[nodiscard]] std::string warp_split_refusal(const Schedule& s, const ScheduleContext& ctx);

/// Why `s` cannot launch on the context's GPU, or "": its main kernel's occupancy reason, another
/// kernel's (named), or "registers: …" where the main kernel's family register model (fitted to ptxas,
/// the one the time model's occupancy uses) puts it past the registers a thread may have, so that it
/// would spill (which the time model does not price). What search_tiles and the tiles work estimate
/// both check, after warp_split_refusal.
[[nodiscard]] std::string launch_refusal(const Schedule& s, const ScheduleContext& ctx);

struct TileCandidate {
  TileShape tiles;
  KernelRequest kernel;
  std::string rejected;  ///< "shared memory: …", "registers: …", "threads: …"; empty when it runs
  LaunchShape launch;    ///< of the schedule's main kernel
  Occupancy occupancy;
  Prediction predicted;  ///< cold L2
  TimePrediction time;
  std::string priced_from;  ///< the compiled record's source where it was priced from one ("" otherwise)
};

/// The pipeline depths searched: spec.stages for a schedule whose kernels keep several K/V stages, {1}
/// otherwise. Throws InputError when the schedule has no tiles to search.
[[nodiscard]] std::vector<std::uint32_t> searched_stages(const TileSearchSpec& spec);

/// Every combination of `spec`, feasible ones first by predicted time (fastest first), then the
/// rejected ones in enumeration order. Throws InputError when the schedule has no such choices.
[[nodiscard]] std::vector<TileCandidate> search_tiles(const ScheduleContext& base, const TileSearchSpec& spec);

}  // namespace iosim
