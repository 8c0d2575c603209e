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

/// Milliseconds with three significant figures.
[[nodiscard]] std::string ms(double seconds);

}  // namespace iosim::report
