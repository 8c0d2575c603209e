// `iosim trace --config teaching.yaml --n 256 --d 16 --schedule flash1,flash2`: every tile transfer of a
// small problem in order, as a table, JSON, or an SVG of the order the score tiles are computed in.
#include "sim/core/error.h"
#include "sim/schedule/registry.h"
#include "src/cli/app.h"
#include "src/cli/commands.h"
#include "src/config/checked_file.h"
#include "src/report/trace_html.h"
#include "src/report/trace_report.h"
#include "src/report/trace_svg.h"

namespace iosim::cli {

namespace {

/// Schedules traced when none is asked for: those whose loop orders the picture contrasts
/// (traced_by_default); the page compares the traffic too, so it shows every schedule run by default.
std::vector<std::string> default_schedules(bool html) {
  std::vector<std::string> out;
  for (const ScheduleEntry& e : schedule_catalog()) {
    if (html ? e.by_default : e.caps.traced_by_default) out.emplace_back(e.name);
  }
  return out;
}

/// To standard output (checked by run() for every command), or to the --out file, checked here.
void write(const std::string& text, const std::string& path, std::ostream& out) {
  if (path.empty()) {
    out << text;
    return;
  }
  config::write_regular_file(path, text);
}

}  // namespace

void add_trace_flags(CLI::App& trace, TraceFlags& f) {
  ProblemFlags& p = f.problem;
  trace.add_option("--config,-c", p.config,
                   "hardware config: a file, or a name in configs/ (teaching.yaml, a100, ...)");
  trace.add_option("--scenario,-s", p.scenario, "scenario file, or a name in scenarios/; flags override it");
  trace.add_option("--n", p.n, "queries per head (at most 4096: every tile is listed)");
  trace.add_option("--n-kv", p.n_kv, "keys per head (default n)");
  trace.add_option("--d", p.d, "head dimension");
  trace.add_option("--batch", p.batch, "batch size (must be 1: a trace follows one head)");
  trace.add_option("--heads", p.heads, "query heads (must be 1: a trace follows one head)");
  trace.add_option("--dtype", p.dtype, "element type: fp32, fp16 (default), bf16, fp8");
  trace.add_option("--pass", p.pass, "fwd (default) or bwd");
  trace.add_flag("--causal", p.causal, "causal mask (query r sees keys up to r + n_kv - n)");
  trace.add_option("--window", p.window, "with --causal: a sliding window, each query sees the W keys ending at its diagonal");
  add_page_flags(trace, p.page_size, p.page_order);
  add_name_list(trace, "--schedule", p.schedules,
                "schedules to trace, side by side in the SVG and the page (default flash1, flash2; html: naive too)");
  trace.add_option("--br", p.br, "rows of Q per tile (B_r), for every schedule traced");
  trace.add_option("--bc", p.bc, "rows of K and V per tile (B_c), for every schedule traced");
  trace.add_option("--splits", p.splits, "K/V splits of flashdecode (default: FlashAttention-2's heuristic)");
  trace.add_option("--format,-f", f.format, "output: text (default), json, svg or html (a page to step through)")
      ->check(CLI::IsMember(std::vector<std::string>{"text", "json", "svg", "html"}));
  trace.add_flag("--predict", f.predict,
                 "json, html: each schedule through the GPU model too (L2 hits and misses per step, blocks per SM)");
  trace.add_option("--out,-o", f.out, "write to this file instead of standard output");
  trace.add_option("--at", f.at, "svg: the step whose SRAM contents are shown (default: each schedule's middle step)");
}

int trace_command(const TraceFlags& f, std::ostream& out) {
  ProblemFlags pf = f.problem;
  if (pf.schedules.empty() && pf.scenario.empty()) pf.schedules = default_schedules(f.format == "html");
  if (!f.out.empty()) config::check_output_file(f.out);  // a FIFO or a device refused before the work
  const Resolved r = resolve(pf, /*need_n=*/true);
  if (r.problems.size() != 1) throw InputError("trace: give one n and one d");
  if (r.passes.size() != 1) throw InputError("trace: --pass must be fwd or bwd");
  if (r.tiles.size() != 1) throw InputError("trace: give one --br and one --bc");
  if (f.at && f.format != "svg") {
    throw InputError("--at is for --format svg (text and JSON list what is in SRAM after every step)");
  }
  if (f.predict && f.format != "json" && f.format != "html") {
    throw InputError("--predict is for --format json or html (the table and the picture show the trace alone)");
  }
  if (f.at && *f.at < 0) throw InputError("--at must be a step, 0 or more (got " + std::to_string(*f.at) + ")");
  const ScheduleContext ctx{r.problems.front(), r.hardware, r.tiles.front(), r.splits, r.kernel};
  report::TraceReport rep{r.config_file, r.hardware, {}, {}};
  for (const std::string& name : r.schedules) {
    const auto schedule = make_schedule(name, r.passes.front(), ctx);
    rep.traces.push_back(trace_schedule(*schedule, ctx));
    if (f.predict) rep.predicted.push_back(predict_trace(rep.traces.back(), *schedule, ctx));
  }
  if (f.format == "json") {
    write(report::render_trace_json(rep), f.out, out);
  } else if (f.format == "html") {
    write(report::render_trace_html(rep), f.out, out);
  } else if (f.format == "svg") {
    const std::optional<std::uint64_t> at =
        f.at ? std::optional<std::uint64_t>(static_cast<std::uint64_t>(*f.at)) : std::nullopt;
    write(report::render_trace_svg(rep.traces, at), f.out, out);
  } else {
    write(report::render_trace_text(rep), f.out, out);
  }
  return kExitOk;
}

}  // namespace iosim::cli
