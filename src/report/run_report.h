// What `iosim` (the run command) prints: per problem, per schedule, the counts of sim/run.h.
// Three renderings of the same data: a table for people, JSON (docs/json-schema.md), CSV for sweeps.
#pragma once

#include <string>
#include <vector>

#include "sim/core/hardware.h"
#include "sim/core/validated_error.h"
#include "sim/run.h"

namespace iosim::report {

struct ProblemRuns {
  Problem problem;
  TileRequest tiles;  ///< what the user asked for, if anything
  std::vector<ScheduleRun> schedules;
};

struct RunReport {
  std::string config_file;
  HardwareSpec hardware;
  std::vector<ProblemRuns> runs;
  /// The config's validated kinds (configs/validated-error.csv), printed beside the predictions.
  std::vector<ValidatedKind> validated;
};

[[nodiscard]] std::string render_table(const RunReport& r);
[[nodiscard]] std::string render_json(const RunReport& r);
[[nodiscard]] std::string render_csv(const RunReport& r);

/// The schema version written into the JSON and CSV outputs.
inline constexpr std::uint64_t kSchemaVersion = 1;

}  // namespace iosim::report
