// Predicted beside measured: the GPU model's counts and times next to the hardware counters and
// CUDA-event times of the same kernel on a real GPU, with the relative error of each.
#pragma once

#include <string>
#include <vector>

#include "cuda/backend.h"
#include "sim/run.h"
#include "src/report/json_writer.h"

namespace iosim::report {

struct CounterRow {
  std::string quantity;  ///< what a person reads
  std::string counter;   ///< the Nsight Compute metric (or "CUDA events")
  std::string unit;      ///< "B", "ops", "ms", "wavefronts"
  double predicted = 0;
  double measured = 0;
  bool available = true;  ///< false when the counter could not be collected
  bool estimate = false;  ///< the model gives only an estimate of this one (shared-memory wavefronts)

  /// (measured − predicted) / measured; 0 when both are 0; NaN when measured is 0 and predicted is not.
  [[nodiscard]] double error() const;
};

struct Comparison {
  std::string schedule;
  std::string pass;
  gpu::KernelSpec spec;
  gpu::Measurement measured;
  ScheduleRun model;  ///< with its prediction (none after measured_only)
  std::vector<CounterRow> rows;
};

/// Pairs the prediction in `model` (run with predict) with `measured`.
[[nodiscard]] Comparison compare(const ScheduleRun& model, const gpu::Measurement& measured);

/// A measurement with no prediction beside it (`validate --no-predict`, for time sweeps whose
/// predictions are made later, off the GPU machine, by scripts/repredict-validation.py): the rows of
/// compare() with NaN predictions; `model` holds only the schedule's name, pass and kernel shape.
[[nodiscard]] Comparison measured_only(const std::string& schedule, Pass pass, const gpu::Measurement& measured,
                                       KernelRequest kernel);

[[nodiscard]] std::string render_comparison_table(const Comparison& c, const std::string& gpu_config);
void comparison_json(JsonWriter& w, const Comparison& c);

/// "+3.2%", "-0.01%", "-" for NaN.
[[nodiscard]] std::string percent(double relative);

}  // namespace iosim::report
