// `iosim trace` as text (an aligned table of every transfer, a student's reading) and as JSON.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/core/hardware.h"
#include "sim/trace/trace_predict.h"
#include "sim/trace/trace_sink.h"

namespace iosim::report {

struct TraceReport {
  std::string config_file;
  HardwareSpec hardware;
  std::vector<Trace> traces;  ///< one per schedule, in the order asked
  std::vector<TracePrediction> predicted;  ///< --predict: one per trace, else empty
};

/// "load", "store", "reduce": the JSON's `dir`.
[[nodiscard]] std::string_view direction_name(Direction d);

/// "columns" (K/V tile outer), "rows" (Q tile outer), "one row or column", or "other": the JSON's `order`.
[[nodiscard]] std::string_view order_name(VisitOrder o);

/// The residency rule in one sentence, as the reports print it.
[[nodiscard]] std::string_view residency_rule();

[[nodiscard]] std::string render_trace_text(const TraceReport& r);
[[nodiscard]] std::string render_trace_json(const TraceReport& r);

}  // namespace iosim::report
