// What a request will cost before it runs: seconds and peak memory, from counts that take
// microseconds (the ledger, the sizes of the matrices) times per-unit costs measured on the
// development machine (docs/performance.md, "Work estimates", says how and how close they come).
// The program refuses a request over its limits (--max-time, --max-memory) instead of running it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/exec/execute.h"
#include "sim/run.h"
#include "sim/schedule/schedule.h"
#include "sim/tiles/search.h"

namespace iosim {

/// Per-unit costs of the slow parts, measured on one core of the development machine (the 2-core VM
/// of docs/performance.md, "Work estimates").
struct WorkCosts {
  /// The exact L2 replay of the GPU model, per sector of the schedule's HBM count and per replay: a
  /// stream of misses (naive) and tiled schedules' hits. bench_gpu_model measures 46 M (naive) and
  /// 97 M (flash2) simulated sectors per second; these are fitted per sector of the count on whole
  /// runs of --predict and tiles (docs/performance.md). They are the exact replay's: a faster model
  /// needs its own.
  double ns_per_sector_streaming = 26;
  double ns_per_sector_tiled = 8;
  /// The exact replay's handling of each event its blocks record (a transfer, each repeat apart, or a
  /// step): recorded when the block starts, read back, mapped to lines and batched, whatever its
  /// size. The per-sector costs above were fitted on tiles of thousands of sectors, where this is
  /// lost in them; a tile of a few sectors (small d, a small SRAM) costs this per transfer instead.
  /// Measured with bench/replay_costs.cpp (docs/performance.md, "Work estimates").
  double ns_per_event = 20;
  /// The running blocks' records (ReplayWork::record_bytes), allocated and first written in every
  /// kernel of every replay: page faults and the kernel's zeroing of fresh pages, then reading them
  /// back from memory rather than the host's caches. Grows with SMs × blocks per SM. Measured with
  /// bench/replay_costs.cpp.
  double ns_per_record_byte = 1.25;
  /// The most the fast replay keeps of the blocks it records, a kernel's (FastKernel's 64 MiB).
  double fast_recorded_bytes = 64.0 * (1 << 20);
  /// Execution on numbers, per floating-point operation of its matrix products: the reference (in
  /// double, blocks of 256 query rows) and the schedule's own run in fp32 or fp64.
  double ns_per_flop_reference = 0.12;
  double ns_per_flop_fp32 = 0.08;
  double ns_per_flop_fp64 = 0.14;
  /// The process before any work (configs, the program itself).
  std::uint64_t base_bytes = 8ull << 20;
};

/// What one exact replay of a schedule handles, counted without replaying it.
struct ReplayWork {
  double sectors = 0;       ///< sectors the SMs ask of the L2 (the schedule's HBM count)
  double events = 0;        ///< events the blocks record: transfers (each repeat apart) and steps
  double record_bytes = 0;  ///< the most the running blocks' records hold at once (a kernel's)
};

/// The counts estimate_prediction() prices, from the first and last block of each kernel.
[[nodiscard]] ReplayWork replay_work(const Schedule& s, const ScheduleContext& ctx);

struct WorkEstimate {
  double seconds = 0;
  std::uint64_t bytes = 0;   ///< peak memory of the process
  std::string slowest;       ///< the part that takes longest, e.g. "executing naive bwd in fp32"
  double slowest_seconds = 0;
  std::string largest;       ///< the part that needs most memory
  /// Adds a part that runs after the others: times add, memory is the larger.
  void then(const WorkEstimate& part);
};

/// One GPU-model prediction of `s` (built from `ctx`) with `replays` passes through the L2 (a cold
/// prediction is one, cold and warm together three: the warm one replays a warm-up first), by the
/// replay `gpu.l2` says: the exact one, or the fast one (priced as WorkCosts says).
[[nodiscard]] WorkEstimate estimate_prediction(const Schedule& s, const ScheduleContext& ctx, int replays,
                                               const WorkCosts& c = {}, const GpuModelOptions& gpu = {});

/// One execution of `s` on numbers (one head; the correct run and, with a bug, the bugged one).
[[nodiscard]] WorkEstimate estimate_execution(const Schedule& s, const Problem& p, const ExecuteOptions& o,
                                              const WorkCosts& c = {});

/// What run_schedules(names, passes, ctx, opt) will cost: counting is free, predictions and
/// executions are not.
[[nodiscard]] WorkEstimate estimate_runs(const std::vector<std::string>& names, const std::vector<Pass>& passes,
                                         const ScheduleContext& ctx, const RunOptions& opt, const WorkCosts& c = {});

/// What search_tiles(base, spec) will cost on `threads` host threads (0: all cores).
[[nodiscard]] WorkEstimate estimate_tiles(const ScheduleContext& base, const TileSearchSpec& spec,
                                          const WorkCosts& c = {});

}  // namespace iosim
