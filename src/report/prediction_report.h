// Rendering the GPU model's predictions (sim/gpu, sim/timing): a table per problem, and the JSON
// object of one schedule, with keys named after the Nsight Compute counters they predict.
#pragma once

#include <string>

#include "sim/run.h"
#include "src/report/json_writer.h"
#include "src/report/run_report.h"

namespace iosim::report {

/// The predictions of every schedule of `pr` that has them; empty when none does.
[[nodiscard]] std::string prediction_table(const ProblemRuns& pr, const HardwareSpec& hw);

/// {"cold": {...}, "warm": {...}} for one schedule.
void prediction_json(JsonWriter& w, const PredictedRun& p);

/// One kernel's shared-memory wavefronts (ld + st): counted by the time model where its family's
/// layout is known (KernelTime::smem_wavefronts_counted), else estimated as its shared-memory bytes
/// over 128 (one conflict-free wavefront).
[[nodiscard]] double kernel_smem_wavefronts(const KernelPrediction& k, const KernelTime& kt);

/// The shared-memory wavefronts of every kernel of `p` (cold), and the names of the kernels among them
/// whose count is an estimate (comma-separated; empty when every kernel's is counted).
struct RunWavefronts {
  double total = 0;
  std::string estimated;
};
[[nodiscard]] RunWavefronts run_smem_wavefronts(const PredictedRun& p);

/// Milliseconds with three significant figures.
[[nodiscard]] std::string ms(double seconds);

}  // namespace iosim::report
