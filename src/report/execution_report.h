// Rendering executions (sim/exec): a few lines per problem for the table, and the "execution" object
// of one schedule for the JSON (docs/json-schema.md).
#pragma once

#include <string>

#include "sim/exec/execute.h"
#include "src/report/json_writer.h"
#include "src/report/run_report.h"

namespace iosim::report {

/// One line per executed schedule of `pr`, under a heading; empty when none was executed.
[[nodiscard]] std::string execution_lines(const ProblemRuns& pr);

/// {"precision": …, "outputs": [...], …} for one schedule.
void execution_json(JsonWriter& w, const ExecutionResult& e);

}  // namespace iosim::report
