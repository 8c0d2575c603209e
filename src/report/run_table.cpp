#include <fmt/format.h>

#include "src/report/run_report.h"
#include "src/report/text_table.h"
#include "src/report/units_format.h"

namespace iosim::report {

namespace {

std::string problem_line(const Problem& p) {
  return fmt::format("batch {} × heads {}, n {}, n_kv {}, d {}, {}", p.batch, p.heads, grouped(p.n),
                     grouped(p.n_kv), p.d, name(p.dtype));
}

std::string tile_text(const ScheduleRun& s) { return fmt::format("{}×{}", s.tiles.br, s.tiles.bc); }

/// HBM total of the naive run of the same pass, the baseline of the "naive ÷" column; 0 if absent.
double naive_total(const ProblemRuns& pr, Pass pass) {
  for (const ScheduleRun& s : pr.schedules) {
    if (s.name == "naive" && s.pass == pass) return static_cast<double>(s.ledger.total(Level::hbm).bytes().value);
  }
  return 0;
}

std::string summary_table(const ProblemRuns& pr) {
  TextTable t({"schedule", "pass", "tile", "HBM read", "HBM write", "HBM total", "naive ÷", "SRAM peak", "FLOPs",
               "bound", "count/bound"},
              {TextTable::Align::left, TextTable::Align::left, TextTable::Align::right, TextTable::Align::right,
               TextTable::Align::right, TextTable::Align::right, TextTable::Align::right, TextTable::Align::right,
               TextTable::Align::right, TextTable::Align::left, TextTable::Align::right});
  for (const ScheduleRun& s : pr.schedules) {
    const Traffic h = s.ledger.total(Level::hbm);
    const double total = static_cast<double>(h.bytes().value);
    const double base = naive_total(pr, s.pass);
    t.add({s.name, std::string(name(s.pass)), tile_text(s), si_bytes(h.read_bytes), si_bytes(h.write_bytes),
           si_bytes(h.bytes()), base > 0 ? ratio(base, total) + "×" : "-", binary_bytes(s.sram.peak()),
           si_count(static_cast<double>(s.ledger.flops().value)), s.upper.formula,
           ratio(static_cast<double>(h.elements().value), s.upper.value)});
  }
  return t.render("  ");
}

std::string tensor_table(const ProblemRuns& pr) {
  std::vector<std::string> header{"tensor"};
  for (const ScheduleRun& s : pr.schedules) header.push_back(s.name + " " + std::string(name(s.pass)));
  TextTable t(header);
  for (Tensor tensor : kAllTensors) {
    bool used = false;
    std::vector<std::string> row{std::string(name(tensor))};
    for (const ScheduleRun& s : pr.schedules) {
      const Traffic& tr = s.ledger.at(Level::hbm, tensor);
      used = used || tr.bytes().value != 0;
      const auto cell = [](Bytes b) { return b.value == 0 ? std::string("-") : si_bytes(b); };
      row.push_back(cell(tr.read_bytes) + " / " + cell(tr.write_bytes));
    }
    if (used) t.add(std::move(row));
  }
  return t.render("  ");
}

}  // namespace

std::string render_table(const RunReport& r) {
  std::string out = fmt::format("iosim · {} ({})\n", r.hardware.name, r.config_file);
  out += fmt::format("SRAM per thread block {}; HBM {:.0f} GB/s\n", binary_bytes(r.hardware.sm.sram_per_block),
                     r.hardware.hbm.bandwidth_gb_per_s);
  for (const ProblemRuns& pr : r.runs) {
    const std::uint64_t m = sram_elements(r.hardware, pr.problem.dtype);
    out += fmt::format("\n{} · M = {} elements\n\n", problem_line(pr.problem), grouped(m));
    out += summary_table(pr);
    out += "\n  HBM traffic per tensor (read / write)\n";
    out += tensor_table(pr);
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
