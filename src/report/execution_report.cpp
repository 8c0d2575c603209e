// The execution lines of the table and the "execution" object of the JSON (execution_report.h).
#include "src/report/execution_report.h"

#include <fmt/format.h>

#include <cmath>

#include "src/report/units_format.h"

namespace iosim::report {

namespace {

/// 3.1e-07 → "3.1e-7"; 0 → "0".
std::string sci(double v) {
  if (v == 0) return "0";
  std::string s = fmt::format("{:.1e}", v);
  const std::size_t e = s.find('e');
  if (e != std::string::npos && e + 2 < s.size() && s[e + 2] == '0') s.erase(e + 2, 1);
  return s;
}

/// "O rel error 3.1e-7, max abs 2.4e-6; dQ …"
std::string errors(const std::vector<TensorError>& es) {
  std::string out;
  for (const TensorError& e : es) {
    if (!out.empty()) out += "; ";
    if (e.nonfinite > 0) {
      out += fmt::format("{} non-finite ({} values inf or NaN)", name(e.tensor), grouped(e.nonfinite));
    } else {
      out += fmt::format("{} rel error {}, max abs {}", name(e.tensor), sci(e.rel_error), sci(e.max_abs_error));
    }
  }
  return out;
}

std::string line(const ScheduleRun& s, const ExecutionResult& e) {
  const ExecuteOptions& o = e.options;
  std::string inputs = fmt::format("seed {}", o.seed);
  if (o.input_scale != 1.0) inputs += fmt::format(", Q and K × {}", o.input_scale);
  std::string out = fmt::format("  - {} {}: executed in {} on head 0 ({}): ", s.name, name(s.pass), name(o.precision),
                                inputs);
  if (o.bug == Bug::none) {
    out += errors(e.outputs);
  } else {
    out += fmt::format("correct: {} | bug {}: {}", errors(e.correct), name(o.bug), errors(e.outputs));
  }
  if (e.max_grew) out += fmt::format(" · running max grew {} times", grouped(*e.max_grew));
  return out + "\n";
}

void tensor_errors(JsonWriter& w, const char* key, const std::vector<TensorError>& es) {
  w.key(key).begin_array();
  for (const TensorError& e : es) {
    w.begin_object().field("tensor", name(e.tensor)).field("max_abs_error", e.max_abs_error);
    w.field("rel_error", e.rel_error).field("nonfinite", e.nonfinite).end_object();
  }
  w.end_array();
}

}  // namespace

std::string execution_lines(const ProblemRuns& pr) {
  std::string out;
  for (const ScheduleRun& s : pr.schedules) {
    if (s.execution) out += line(s, *s.execution);
  }
  if (out.empty()) return out;
  return "\n  executed on numbers, errors against attention in double (rel = ‖out − ref‖_F / ‖ref‖_F)\n" + out;
}

void execution_json(JsonWriter& w, const ExecutionResult& e) {
  const ExecuteOptions& o = e.options;
  w.begin_object().field("precision", name(o.precision)).field("seed", o.seed).field("input_scale", o.input_scale);
  w.field("bug", name(o.bug)).field("heads_executed", e.heads_executed);
  tensor_errors(w, "outputs", e.outputs);
  if (o.bug != Bug::none) tensor_errors(w, "correct", e.correct);
  if (e.max_grew) w.field("max_grew", *e.max_grew);
  w.end_object();
}

}  // namespace iosim::report
