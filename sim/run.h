// Running one schedule through the ledger: the counts, the SRAM plan and the bound, in one value.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/bounds/bounds.h"
#include "sim/core/ledger.h"
#include "sim/exec/execute.h"
#include "sim/gpu/gpu_model.h"
#include "sim/gpu/wave_stats.h"
#include "sim/timing/time_model.h"
#include "sim/schedule/schedule.h"

namespace iosim {

/// What the GPU model predicts for a schedule: its kernels through the L2, from a cold (flushed) and
/// a warm L2, and their times.
struct PredictedRun {
  Prediction cold;
  Prediction warm;
  TimePrediction cold_time;
  TimePrediction warm_time;
  /// cold_time at the datasheet's peaks, ignoring the config's measured ceilings: a lower bound on
  /// the time (the same as cold_time when the config has none).
  TimePrediction cold_bound;
  /// The cold run's L2 reads and hits per wave, one entry per kernel (sim/gpu/wave_stats.h).
  std::vector<KernelWaves> cold_waves;
};

struct RunOptions {
  bool predict = false;     ///< also run the GPU model (seconds for large problems, not microseconds)
  GpuModelOptions gpu;      ///< launch order and replacement policy; `warm` is set by the run itself
  std::optional<ExecuteOptions> execute;  ///< also execute each schedule on numbers (n ≤ 4096)
};

struct ScheduleRun {
  std::string name;
  Pass pass = Pass::fwd;
  TileShape tiles;
  std::string_view tile_source;  ///< Schedule::tile_source()
  SramPlan sram;
  Bytes sram_limit;           ///< what one thread block may use
  std::uint64_t m_elements = 0;  ///< M of the bounds: sram_limit in elements of the problem's type
  Ledger ledger{DType::fp16};
  BoundValue upper;
  BoundValue lower;
  std::vector<std::string> notes;
  std::string variant;  ///< Schedule::variant()
  KernelRequest kernel;  ///< warps and stages of its tiled kernel
  std::optional<PredictedRun> predicted;
  std::optional<ExecutionResult> execution;  ///< with RunOptions::execute

  /// HBM reads + writes in elements over the upper bound: the constant hidden in Θ(·).
  [[nodiscard]] double upper_ratio() const;
  /// HBM reads + writes in elements over the lower bound: how far above the best possible.
  [[nodiscard]] double lower_ratio() const;
};

/// Counts `s` (Walk::runs) for the problem and hardware it was built from, with opt.predict runs
/// the GPU model on it, cold and warm, and with opt.execute executes it on numbers.
[[nodiscard]] ScheduleRun run_schedule(const Schedule& s, const ScheduleContext& ctx, const RunOptions& opt = {});

/// Builds and counts each schedule in `names` for each pass in `passes`, in that order. With
/// opt.execute, checks first that every one of them can be executed (InputError otherwise).
[[nodiscard]] std::vector<ScheduleRun> run_schedules(const std::vector<std::string>& names,
                                                     const std::vector<Pass>& passes,
                                                     const ScheduleContext& ctx, const RunOptions& opt = {});

}  // namespace iosim
