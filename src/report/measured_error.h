// Beside a prediction, the error its kind of kernel has when measured: the rows of
// configs/validated-error.csv (sim/core/validated_error.h) for each schedule run predicted.
#pragma once

#include <string>
#include <vector>

#include "sim/core/validated_error.h"
#include "src/report/json_writer.h"
#include "src/report/run_report.h"

namespace iosim::report {

/// "none", "causal" or "window": the mask column of the validated kinds.
[[nodiscard]] std::string mask_kind(const Problem& p);

/// The validated kind of schedule run `s` of problem `p` among `kinds`; nullptr where it has none
/// (its kind never ran on this config's GPU, or its kernels are not iosim's own).
[[nodiscard]] const ValidatedKind* validated_kind(const ScheduleRun& s, const Problem& p,
                                                          const std::vector<ValidatedKind>& kinds);

/// A table of the measured error of each predicted schedule run of `pr`; empty when none is predicted.
[[nodiscard]] std::string measured_error_table(const ProblemRuns& pr, const std::vector<ValidatedKind>& kinds);

/// "validated": the kind's errors per counter (median and largest |error|, percent), or null.
void measured_error_json(JsonWriter& w, const ValidatedKind* k);

}  // namespace iosim::report
