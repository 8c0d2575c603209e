// One function per subcommand; app.cpp parses the flags and calls them (and so does the Python
// module, python/src/module.cpp). Each throws InputError for bad input and returns an exit code otherwise.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "src/cli/limits.h"
#include "src/cli/problem_flags.h"
#include "src/cli/validate_shape.h"

namespace iosim::cli {

/// How `measure` and `validate` run a kernel.
struct MeasureFlags {
  int runs = 20;
  int warmup = 5;
  bool no_counters = false;
  std::string json_out;  ///< measure: also write the JSON here
  bool no_predict = false;  ///< measure: the measurement alone (a large problem's prediction takes seconds)
};

/// `limits`: --max-time and --max-memory; a request whose estimate exceeds them is refused (InputError).
int run_command(const ProblemFlags& f, const std::string& format, std::ostream& out, const Limits& limits = {});
/// `f.d` empty: d = 64. Returns kExitCheckFailed when a fitted slope is out of its tolerance.
int bounds_command(const ProblemFlags& f, const std::string& format, std::ostream& out);
int tiles_command(const ProblemFlags& f, const std::string& format, std::size_t top, std::ostream& out,
                  const Limits& limits = {});
int measure_command(const ProblemFlags& f, const MeasureFlags& mf, const std::string& format, std::ostream& out);

/// `validate`'s grid: `quick` is the subset scripts/gpu check runs.
struct ValidateFlags {
  std::string config;
  std::string out_dir = "results";
  bool quick = false;
  bool masks = false;  ///< only the grid's causal, grouped-query and ragged-n kernels
  std::vector<std::string> schedules;  ///< in this order; empty: naive, flash1, flash2, flashdecode(-heads)
  std::vector<std::string> passes;     ///< a slice of the grid; empty: all
  std::vector<std::uint64_t> ds, ns;
  std::vector<std::string> tiles;      ///< "BRxBC" tiles of the grid to keep; empty: all
  std::vector<std::string> shapes;     ///< "B,H,N,D": these problems instead of the grid, every variant
  ShapeOptions shape;                  ///< the mask, n_kv, window and pages of every --shape problem
  std::vector<int> warps, stages;      ///< variants to keep; empty: all
  bool no_predict = false;             ///< measure only; predictions later (scripts/repredict-validation.py)
  MeasureFlags measure;
};
int validate_command(const ValidateFlags& v, std::ostream& out, std::ostream& progress);

/// `calibrate`: `config` may be empty (no datasheet column); `write_file`, when not empty, is a config
/// whose `measured:` section is replaced by the one measured (and the comparison's config when
/// `config` is empty).
int calibrate_command(const std::string& config, const std::string& write_file, std::ostream& out,
                      std::ostream& progress);

/// `trace`: every tile transfer of small problems, as text, JSON or an SVG picture (cmd_trace.cpp).
struct TraceFlags {
  ProblemFlags problem;
  std::string format = "text";       ///< text, json, svg or html
  bool predict = false;              ///< json, html: each step through the GPU model's L2
  std::string out;                   ///< write here instead of to standard output
  std::optional<std::int64_t> at;    ///< svg: the step whose SRAM contents are shown
};
void add_trace_flags(CLI::App& trace, TraceFlags& f);
int trace_command(const TraceFlags& f, std::ostream& out);

}  // namespace iosim::cli
