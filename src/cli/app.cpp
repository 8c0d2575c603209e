#include "src/cli/app.h"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <sstream>
#include <string_view>

#include "sim/core/error.h"
#include "src/cli/checked_output.h"
#include "src/cli/cmd_sweep.h"
#include "src/cli/commands.h"
#include "src/cli/failure.h"
#include "src/cli/progress_bar.h"
#include "src/cli/value_problem.h"

namespace iosim::cli {

namespace {

const std::vector<std::string> kFormats{"table", "json", "csv"};

CLI::Option* add_format(CLI::App& app, std::string& format) {
  return app.add_option("--format,-f", format, "output: table (default), json or csv")
      ->check(CLI::IsMember(kFormats));
}

/// "iosim: error: " and `what` on one line (failure.h).
void error_line(std::ostream& err, std::string_view what) { err << "iosim: error: " << one_line(what) << '\n'; }

/// Puts value_problem() in front of every option of `app` and its subcommands that takes a value, and
/// flag_value_problem() in front of every on/off flag (`--causal=2`).
void check_values(CLI::App& app) {
  for (CLI::Option* o : app.get_options()) {
    if (o == app.get_help_ptr() || o == app.get_help_all_ptr() || o == app.get_version_ptr()) continue;
    if (o->get_items_expected_max() == 0) {  // an on/off flag
      o->check(CLI::Validator([](std::string& v) { return flag_value_problem(v); }, ""));
      continue;
    }
    const std::string full = o->get_type_name();
    const std::string type = full.substr(0, full.find(':'));  // "UINT:POSITIVE" once a check is added
    o->check(CLI::Validator([type](std::string& v) { return value_problem(v, type); }, ""));
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) check_values(*sub);
}

int run_checked(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  // Whatever escapes is still one line and exit 2: out of memory (the configs' limits should keep every
  // input inside it), or a library's error that a check upstream missed.
  int code = kExitBadInput;
  try {
    code = run_checked(argc, argv, out, err);
  } catch (const std::exception&) {
    error_line(err, describe_failure(std::current_exception()).message);
  }
  // Output that did not arrive (a full disk, a closed standard output) is a failure, said once here for
  // every command, also one whose check failed (exit 1: bounds); bad input has said why already.
  if (code != kExitBadInput) {
    if (const std::optional<std::string> why = write_failure(out)) {
      error_line(err, "cannot write the output to standard output" + *why);
      return kExitBadInput;
    }
  }
  return code;
}

namespace {

int run_checked(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"iosim: how many bytes attention schedules move between HBM and SRAM, and how long that takes"};
  app.set_version_flag("--version", std::string(kVersion));
  app.require_subcommand(0, 1);

  ProblemFlags run_flags;
  std::string run_format = "table";
  add_problem_flags(app, run_flags, FlagSet::run);
  add_execute_flags(app, run_flags);
  add_format(app, run_format);

  // Limits of the work a request may take (src/cli/limits.h), and whether progress shows on a terminal.
  std::string max_time, max_memory;
  bool quiet = false;
  const auto add_limits = [&](CLI::App& a) {
    a.add_option("--max-time", max_time, "refuse a request estimated to take longer (default 10m; e.g. 30m, 2h)");
    a.add_option("--max-memory", max_memory, "refuse a request estimated to need more memory (default 8GiB)");
  };
  const auto add_quiet = [&](CLI::App& a) {
    a.add_flag("--quiet,-q", quiet, "no progress on stderr (shown only when stderr is a terminal)");
  };
  add_limits(app);
  add_quiet(app);

  ProblemFlags bounds_flags;
  std::string bounds_format = "table";
  CLI::App* bounds = app.add_subcommand("bounds", "sweep n and the SRAM size, fit the slopes of Theorem 2");
  add_problem_flags(*bounds, bounds_flags, FlagSet::bounds);
  add_format(*bounds, bounds_format);

  ProblemFlags tiles_flags;
  std::string tiles_format = "table";
  std::size_t tiles_top = 10;
  CLI::App* tiles = app.add_subcommand("tiles", "rank tile shapes, warps and stages by the GPU model's predicted time");
  add_problem_flags(*tiles, tiles_flags, FlagSet::tiles);
  add_format(*tiles, tiles_format);
  tiles->add_option("--top", tiles_top, "how many of the best to show (default 10)")->check(CLI::PositiveNumber);

  ProblemFlags measure_flags;
  MeasureFlags measure_opts;
  std::string measure_format = "table";
  CLI::App* measure = app.add_subcommand("measure", "run one kernel on the GPU: its counters and time beside the model's");
  add_problem_flags(*measure, measure_flags, FlagSet::run);
  measure->add_option("--format,-f", measure_format, "output: table (default) or json")
      ->check(CLI::IsMember(std::vector<std::string>{"table", "json"}));
  const auto measure_options = [](CLI::App& a, MeasureFlags& m) {
    a.add_option("--runs", m.runs, "timed runs, cold and warm each (default 20)")->check(CLI::Range(1, 10000));
    a.add_option("--warmup", m.warmup, "runs before any measurement (default 5)")->check(CLI::Range(0, 10000));
    a.add_flag("--no-counters", m.no_counters, "time only (for use under ncu, which holds the profiler)");
  };
  measure_options(*measure, measure_opts);
  measure->add_option("--json-out", measure_opts.json_out, "also write the comparison as JSON to this file");
  measure->add_flag("--no-predict", measure_opts.no_predict, "measure only: no prediction beside it (JSON: null)");

  ValidateFlags validate_flags;
  CLI::App* validate = app.add_subcommand("validate", "measure a grid of kernels on the GPU against the model");
  validate->add_option("--config,-c", validate_flags.config, "hardware config of the model (the GPU's)")->required();
  validate->add_option("--out", validate_flags.out_dir, "folder for the JSON and Markdown results (default results)");
  validate->add_flag("--quick", validate_flags.quick, "a small subset (one tile per kernel, n = 1024)");
  validate->add_flag("--masks", validate_flags.masks, "only the grid's causal, grouped-query and ragged-n kernels");
  validate->add_option("--schedule,-s", validate_flags.schedules,
                       "only these schedules, in this order (naive, flash1, flash2, flashdecode, flashdecode-heads; "
                       "flash3 on a Hopper GPU)");
  validate->add_option("--pass", validate_flags.passes, "only these passes (fwd, bwd)");
  validate->add_option("--d", validate_flags.ds, "only these head dims of the grid (64, 128)");
  validate->add_option("--n", validate_flags.ns, "only these sequence lengths of the grid (1024, 4096, 3000)");
  validate->add_option("--tile", validate_flags.tiles, "only these tiles of the grid, as B_rxB_c (64x128)");
  validate->add_option("--shape", validate_flags.shapes,
                       "B,H,N,D (repeatable): these problems instead of the grid, every compiled variant, fp16");
  validate->add_flag("--causal", validate_flags.shape.causal, "with --shape: the causal mask");
  validate->add_option("--n-kv", validate_flags.shape.n_kv, "with --shape: keys per head (default N; decode: N = 1)");
  validate->add_option("--window", validate_flags.shape.window,
                       "with --shape --causal: a sliding window of W keys (kernels without one refuse it)");
  add_page_flags(*validate, validate_flags.shape.page_size, validate_flags.shape.page_order);  // with --shape
  validate->add_option("--warps", validate_flags.warps, "only kernels with these warps per block (4, 8)");
  validate->add_option("--stages", validate_flags.stages, "only kernels with these K/V stages (1, 2, 3)");
  validate->add_flag("--no-predict", validate_flags.no_predict,
                     "measure only, no model (scripts/repredict-validation.py predicts later)");
  measure_options(*validate, validate_flags.measure);

  std::string calibrate_config;
  CLI::App* calibrate =
      app.add_subcommand("calibrate", "measure the rate each resource of the time model reaches on this GPU");
  calibrate->add_option("--config,-c", calibrate_config, "hardware config whose datasheet figures to compare with");
  std::string calibrate_write;
  calibrate->add_option("--write", calibrate_write,
                        "config file whose measured: section to replace with the one measured (the rest kept as is)");

  TraceFlags trace_flags;
  CLI::App* trace = app.add_subcommand("trace", "every tile transfer of a small problem in order: a table, JSON or an SVG");
  add_trace_flags(*trace, trace_flags);

  SweepFlags sweep_flags;
  CLI::App* sweep = add_sweep_command(app, sweep_flags);

  add_limits(*tiles);
  for (CLI::App* sub : {bounds, tiles, measure, validate, calibrate, trace, sweep}) add_quiet(*sub);

  check_values(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) {
      app.exit(e, out, err);
      return kExitOk;
    }
    error_line(err, e.what());
    return kExitBadInput;
  }

  try {
    // validate and calibrate write their own progress lines, which a redrawn line would overwrite.
    const bool own_lines = validate->parsed() || calibrate->parsed();
    const ProgressScope progress(err, !quiet && !own_lines && stderr_is_terminal(err));
    const Limits limits = resolve_limits(max_time, max_memory);
    std::ostringstream no_progress;  // --quiet: validate's and calibrate's progress lines too
    std::ostream& progress_lines = quiet ? no_progress : err;
    if (bounds->parsed()) return bounds_command(bounds_flags, bounds_format, out);
    if (tiles->parsed()) return tiles_command(tiles_flags, tiles_format, tiles_top, out, limits);
    if (measure->parsed()) return measure_command(measure_flags, measure_opts, measure_format, out);
    if (validate->parsed()) return validate_command(validate_flags, out, progress_lines);
    if (calibrate->parsed()) return calibrate_command(calibrate_config, calibrate_write, out, progress_lines);
    if (trace->parsed()) return trace_command(trace_flags, out);
    if (sweep->parsed()) return sweep_command(sweep_flags, quiet, out, err);
    return run_command(run_flags, run_format, out, limits);
  } catch (const std::exception&) {  // bad input, or the GPU failed under a command that needs it
    const Failure f = describe_failure(std::current_exception());
    error_line(err, f.message);
    return f.exit_code;
  }
}

}  // namespace

}  // namespace iosim::cli
