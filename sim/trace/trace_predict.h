// A trace through the GPU model (iosim trace --predict): for every step of the trace, the L2 sectors
// that transfer hit and missed when its block ran among the others; for every kernel, which block ran
// in which slot of which SM, wave by wave.
//
// The trace lists the kernels' blocks one after another in launch order (one head); the GPU model runs
// the same blocks interleaved. A GpuObserver charges each transfer's L2 counts to its block, and the
// blocks' transfers, put back in launch order, are the trace's steps (checked tile by tile). Where
// they are not — standard attention's count moves whole matrices, as the paper counts it, while its
// kernels move panels — there are no per-step figures, only the placement, the waves and the totals.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/gpu/gpu_model.h"
#include "sim/gpu/wave_stats.h"
#include "sim/trace/trace_sink.h"

namespace iosim {

/// Where a block ran and which steps of the trace it made.
struct BlockPlace {
  std::uint64_t block = 0;  ///< launch order in its kernel
  std::uint64_t wave = 0;   ///< block ÷ blocks running at once
  std::uint64_t slot = 0;
  std::uint64_t sm = 0;
  std::uint64_t first_step = 0;  ///< its first transfer's step in the trace (per_step only)
  std::uint64_t steps = 0;       ///< transfers it made
};

struct KernelPlaces {
  std::string name;
  std::uint64_t concurrent = 0;  ///< blocks running at once
  std::uint64_t sms = 0;
  std::vector<BlockPlace> blocks;  ///< in launch order
};

struct TracePrediction {
  bool per_step = false;          ///< the kernels' transfers are the trace's, step for step
  std::vector<TransferL2> steps;  ///< per_step: one per step of the trace; else empty
  std::vector<KernelPlaces> kernels;
  std::vector<KernelWaves> waves;
  Prediction prediction;  ///< the model's totals for the same run (cold L2)
};

/// Runs `s` (built from `ctx`, the schedule trace `t` was made from) through the GPU model, cold.
[[nodiscard]] TracePrediction predict_trace(const Trace& t, const Schedule& s, const ScheduleContext& ctx,
                                            const GpuModelOptions& opt = {});

}  // namespace iosim
