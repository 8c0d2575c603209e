#include <fmt/format.h>

#include <map>

#include "sim/core/escape.h"
#include "sim/schedule/registry.h"
#include "src/report/execution_report.h"
#include "src/report/mask_text.h"
#include "src/report/measured_error.h"
#include "src/report/pages_text.h"
#include "src/report/prediction_report.h"
#include "src/report/run_report.h"
#include "src/report/text_table.h"
#include "src/report/units_format.h"

namespace iosim::report {

namespace {

std::string problem_line(const Problem& p) {
  std::string heads = fmt::format("heads {}", p.heads);
  if (p.kv_head_count() != p.heads) heads += fmt::format(" (kv_heads {})", p.kv_head_count());
  return fmt::format("batch {} × {}, n {}, n_kv {}, d {}, {}{}", p.batch, heads, grouped(p.n), grouped(p.n_kv), p.d,
                     name(p.dtype), mask_text(p) + pages_text(p));
}

/// One row of the summary: a schedule's pass, or the sum of its passes.
struct Row {
  std::string name;
  std::string pass;
  std::string tile;
  Traffic hbm;
  Bytes sram;
  Flops flops;
  std::string bound;
  double upper_ratio = 0;
  double lower_ratio = 0;
};

std::vector<Row> rows_of(const ProblemRuns& pr) {
  std::vector<Row> rows;
  std::map<std::string, Row> totals;
  std::map<std::string, int> passes;
  std::vector<std::string> order;
  for (const ScheduleRun& s : pr.schedules) {
    const Traffic h = s.ledger.total(Level::hbm);
    rows.push_back({s.name, std::string(name(s.pass)), fmt::format("{}×{}", s.tiles.br, s.tiles.bc), h,
                    s.sram.peak(), s.ledger.flops(), s.upper.formula, s.upper_ratio(), s.lower_ratio()});
    if (passes[s.name] == 0) order.push_back(s.name);
    Row& t = totals[s.name];
    t.name = s.name;
    t.pass = "fwd+bwd";
    t.tile = "";
    t.hbm += h;
    t.sram = std::max(t.sram, s.sram.peak());
    t.flops += s.ledger.flops();
    ++passes[s.name];
  }
  for (const std::string& n : order) {
    if (passes[n] > 1) rows.push_back(totals[n]);
  }
  return rows;
}

std::string summary_table(const ProblemRuns& pr) {
  using A = TextTable::Align;
  TextTable t({"schedule", "pass", "tile", "HBM read", "HBM write", "HBM total", "naive ÷", "SRAM peak", "FLOPs",
               "upper bound", "÷ upper", "÷ lower"},
              {A::left, A::left, A::right, A::right, A::right, A::right, A::right, A::right, A::right, A::left,
               A::right, A::right});
  const std::vector<Row> rows = rows_of(pr);
  for (const Row& r : rows) {
    double naive = 0;
    for (const Row& o : rows) {
      const ScheduleEntry* e = find_schedule(o.name);
      if (e != nullptr && e->caps.baseline && o.pass == r.pass) naive = static_cast<double>(o.hbm.bytes().value);
    }
    const auto total = static_cast<double>(r.hbm.bytes().value);
    const bool sum = r.pass == "fwd+bwd";
    t.add({r.name, r.pass, r.tile, si_bytes(r.hbm.read_bytes), si_bytes(r.hbm.write_bytes), si_bytes(r.hbm.bytes()),
           naive > 0 ? ratio(naive, total) + "×" : "-", binary_bytes(r.sram), si_count(static_cast<double>(r.flops.value)),
           sum ? "" : r.bound, sum ? "" : fmt::format("{:.2f}", r.upper_ratio),
           sum ? "" : fmt::format("{:.2f}", r.lower_ratio)});
  }
  return t.render("  ");
}

/// "  tiles from: naive fwd GEMM · flash2 fwd kernel menu\n": where each schedule's tile came from.
std::string tile_sources(const ProblemRuns& pr) {
  std::string out;
  for (const ScheduleRun& s : pr.schedules) {
    out += fmt::format("{}{} {} {}", out.empty() ? "  tiles from: " : " · ", s.name, name(s.pass), s.tile_source);
  }
  return out.empty() ? out : out + "\n";
}

/// 4 → "4", 2.5 → "2.5", 1.3333 → "1.33".
std::string times(double v) {
  std::string s = fmt::format("{:.2f}", v);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

std::string tensor_table(const ProblemRuns& pr) {
  std::vector<std::string> header{"tensor", "size"};
  for (const ScheduleRun& s : pr.schedules) header.push_back(s.name + " " + std::string(name(s.pass)));
  TextTable t(header);
  for (Tensor tensor : kAllTensors) {
    bool used = false;
    const std::uint64_t size = tensor_elements(pr.problem, tensor);
    const DType type = storage_type(tensor, pr.problem.dtype);
    std::vector<std::string> row{std::string(name(tensor)), size > 0 ? si_bytes(bytes_of(Elements(size), type)) : "-"};
    for (const ScheduleRun& s : pr.schedules) {
      const Traffic& tr = s.ledger.at(Level::hbm, tensor);
      used = used || tr.bytes().value != 0;
      std::string read = tr.read_bytes.value == 0 ? std::string("-") : si_bytes(tr.read_bytes);
      if (size > 0 && tr.read_elements.value > size) {
        read += " ×" + times(static_cast<double>(tr.read_elements.value) / static_cast<double>(size));
      }
      row.push_back(read + " / " + (tr.write_bytes.value == 0 ? std::string("-") : si_bytes(tr.write_bytes)));
    }
    if (used) t.add(std::move(row));
  }
  return t.render("  ");
}

}  // namespace

std::string render_table(const RunReport& r) {
  std::string out = fmt::format("iosim · {} ({})\n", escape_controls(r.hardware.name), escape_controls(r.config_file));
  out += fmt::format("SRAM per thread block {}; HBM {:.0f} GB/s\n", binary_bytes(r.hardware.sm.sram_per_block),
                     r.hardware.hbm.bandwidth_gb_per_s);
  for (const ProblemRuns& pr : r.runs) {
    const std::uint64_t m = sram_elements(r.hardware, pr.problem.dtype);
    std::string asked;
    if (pr.tiles.br || pr.tiles.bc) {
      asked = " · tiles asked:";
      if (pr.tiles.br) asked += fmt::format(" B_r = {}", *pr.tiles.br);
      if (pr.tiles.bc) asked += fmt::format(" B_c = {}", *pr.tiles.bc);
    }
    out += fmt::format("\n{} · M = {} elements{}\n\n", problem_line(pr.problem), grouped(m), asked);
    out += summary_table(pr);
    out += tile_sources(pr);
    out += "\n  HBM traffic per tensor: read ×(reads per element) / write\n";
    out += tensor_table(pr);
    const std::string predicted = prediction_table(pr, r.hardware);
    out += predicted;
    if (!predicted.empty()) out += measured_error_table(pr, r.validated);
    out += execution_lines(pr);
    bool header = false;
    for (const ScheduleRun& s : pr.schedules) {
      for (const std::string& note : s.notes) {
        if (!header) out += "\n  notes\n";
        header = true;
        out += fmt::format("  - {} {}: {}\n", s.name, name(s.pass), note);
      }
    }
  }
  return out;
}

}  // namespace iosim::report
