#include "src/report/tiles_report.h"

#include <fmt/format.h>

#include <map>
#include <utility>
#include <vector>

#include "sim/core/escape.h"
#include "src/report/json_writer.h"
#include "src/report/mask_text.h"
#include "src/report/pages_text.h"
#include "src/report/prediction_report.h"
#include "src/report/run_report.h"
#include "src/report/text_table.h"
#include "src/report/units_format.h"

namespace iosim::report {

namespace {

/// "shared memory", "registers", "threads": the word before the colon.
std::string reason_kind(const std::string& r) { return r.substr(0, r.find(':')); }

double l2_bytes(const TileCandidate& c) {
  return static_cast<double>(c.predicted.l2_read_sectors() + c.predicted.l2_write_sectors() +
                             c.predicted.l2_red_sectors()) *
         c.predicted.sector_bytes;
}

/// The candidate's time terms summed over its kernels.
KernelTime terms(const TileCandidate& c) {
  KernelTime sum;
  for (const KernelTime& k : c.time.kernels) {
    sum.issue_s += k.issue_s;
    sum.latency_s += k.latency_s;
    sum.tail_s += k.tail_s;
    sum.memory_s += k.memory_s;
    sum.launch_s += k.launch_s;
  }
  return sum;
}

/// The candidate's longest kernel (the attention kernel, not the backward's pre- and post-processing):
/// its registers and blocks per SM are what the time model ran it with.
const KernelTime* main_kernel(const TileCandidate& c) {
  const KernelTime* best = nullptr;
  for (const KernelTime& k : c.time.kernels) {
    if (best == nullptr || k.total_s > best->total_s) best = &k;
  }
  return best;
}

/// Registers per thread: the family's register model where the time model used it, else the schedule's estimate.
/// The registers the time model ran the main kernel with and whose they are (ptxas: the compiled
/// kernel's; fit: the family's register model), else the schedule's estimate.
std::string registers(const TileCandidate& c) {
  const KernelTime* k = main_kernel(c);
  if (k == nullptr || k->registers == 0) return std::to_string(c.launch.registers_per_thread);
  return fmt::format("{} {}", k->registers, name(k->registers_from));
}

std::string per_sm(const TileCandidate& c) {
  const KernelTime* k = main_kernel(c);
  if (k == nullptr || k->blocks_per_sm == 0) return fmt::format("{} ({})", c.occupancy.blocks_per_sm, c.occupancy.limited_by);
  return fmt::format("{} ({})", k->blocks_per_sm, k->limited_by);
}

}  // namespace

std::string render_tiles_table(const TilesReport& r) {
  const Problem& p = r.problem;
  std::string out = fmt::format("iosim tiles · {} ({}) · {} {} · batch {} × heads {}, n {}, n_kv {}, d {}, {}{}\n",
                                escape_controls(r.hardware.name), escape_controls(r.config_file), r.spec.schedule, r.pass, p.batch, p.heads,
                                grouped(p.n), grouped(p.n_kv), p.d, name(p.dtype), mask_text(p) + pages_text(p));
  std::size_t feasible = 0;
  std::map<std::string, std::size_t> rejected;
  for (const TileCandidate& c : r.candidates) {
    if (c.rejected.empty()) {
      ++feasible;
    } else {
      ++rejected[reason_kind(c.rejected)];
    }
  }
  out += fmt::format("{} candidates: {} run, ranked by predicted time (cold L2); best {} shown\n\n", r.candidates.size(),
                     feasible, std::min(r.top, feasible));
  using A = TextTable::Align;
  std::vector<std::string> header{"rank", "B_r", "B_c", "warps", "stages", "smem", "regs", "per SM", "waves",
                                  "L2 traffic", "DRAM read", "DRAM write", "issue", "latency", "tail", "time",
                                  "bound by"};
  std::vector<A> align{A::right, A::right, A::right, A::right, A::right, A::right, A::right, A::left, A::right,
                       A::right, A::right, A::right, A::right, A::right, A::right, A::right, A::left};
  // Candidates priced from compiled records (--kernels triton) say so, each row.
  const bool compiled = r.spec.source == KernelSource::triton;
  if (compiled) {
    header.emplace_back("priced from");
    align.push_back(A::left);
  }
  TextTable t(header, align);
  std::size_t rank = 0;
  for (const TileCandidate& c : r.candidates) {
    if (!c.rejected.empty() || rank == r.top) break;
    ++rank;
    std::vector<std::string> row{
        std::to_string(rank), std::to_string(c.tiles.br), std::to_string(c.tiles.bc), std::to_string(c.kernel.warps),
        std::to_string(c.kernel.stages), binary_bytes(c.launch.smem), registers(c), per_sm(c),
        fmt::format("{:.2f}", static_cast<double>(c.predicted.kernels.empty() ? 0 : c.predicted.kernels.front().waves)),
        si_bytes(l2_bytes(c)), si_bytes(c.predicted.dram_read()), si_bytes(c.predicted.dram_write()),
        ms(terms(c).issue_s), ms(terms(c).latency_s), ms(terms(c).tail_s), ms(c.time.total_s), c.time.binding};
    if (compiled) row.push_back(c.priced_from + " record");
    t.add(std::move(row));
  }
  out += t.render("  ");
  if (!rejected.empty()) {
    out += "\n  rejected";
    for (const auto& [kind, n] : rejected) out += fmt::format(" · {}: {}", kind, n);
    out += "\n";
    std::map<std::string, bool> shown;
    for (const TileCandidate& c : r.candidates) {
      if (c.rejected.empty() || shown[reason_kind(c.rejected)]) continue;
      shown[reason_kind(c.rejected)] = true;
      out += fmt::format("  - e.g. B_r={} B_c={} warps={} stages={}: {}\n", c.tiles.br, c.tiles.bc, c.kernel.warps,
                         c.kernel.stages, c.rejected);
    }
  }
  out += "  (all candidates with their reasons: --format csv or json)\n";
  return out;
}

std::string render_tiles_json(const TilesReport& r) {
  JsonWriter w;
  w.begin_object().field("schema_version", kSchemaVersion);
  w.key("config").begin_object().field("file", r.config_file).field("name", r.hardware.name).end_object();
  w.field("schedule", r.spec.schedule).field("pass", r.pass);
  w.key("candidates").begin_array();
  for (const TileCandidate& c : r.candidates) {
    w.begin_object().field("br", c.tiles.br).field("bc", c.tiles.bc).field("warps", std::uint64_t{c.kernel.warps});
    w.field("stages", std::uint64_t{c.kernel.stages}).field("feasible", c.rejected.empty());
    if (!c.rejected.empty()) {
      w.field("rejected", c.rejected).end_object();
      continue;
    }
    w.field("smem_bytes", c.launch.smem.value).field("registers_per_thread", std::uint64_t{c.launch.registers_per_thread});
    w.field("blocks_per_sm", std::uint64_t{c.occupancy.blocks_per_sm}).field("limited_by", c.occupancy.limited_by);
    if (const KernelTime* k = main_kernel(c)) {
      w.field("model_registers", std::uint64_t{k->registers}).field("model_registers_from", name(k->registers_from));
      w.field("model_overhead_from", name(k->overhead_from));
      w.field("model_blocks_per_sm", std::uint64_t{k->blocks_per_sm});
      w.field("model_limited_by", k->limited_by);
    }
    w.field("lts__t_sectors_srcunit_tex_op_read", c.predicted.l2_read_sectors());
    w.field("lts__t_sectors_srcunit_tex_op_write", c.predicted.l2_write_sectors());
    w.field("lts__t_sectors_srcunit_tex_op_red", c.predicted.l2_red_sectors());
    w.field("dram__bytes_read", c.predicted.dram_read().value).field("dram__bytes_write", c.predicted.dram_write().value);
    const KernelTime sum = terms(c);
    w.field("issue_ms", sum.issue_s * 1e3).field("latency_ms", sum.latency_s * 1e3).field("tail_ms", sum.tail_s * 1e3);
    w.field("memory_ms", sum.memory_s * 1e3).field("launch_ms", sum.launch_s * 1e3);
    if (!c.priced_from.empty()) w.field("priced_from", c.priced_from + " compiled record");
    w.field("time_ms", c.time.total_s * 1e3).field("binding", c.time.binding).end_object();
  }
  w.end_array().end_object();
  return w.str();
}

std::string render_tiles_csv(const TilesReport& r) {
  std::string out =
      "schedule,pass,br,bc,warps,stages,feasible,rejected,smem_bytes,registers_per_thread,blocks_per_sm,limited_by,"
      "l2_read_sectors,l2_write_sectors,l2_red_sectors,dram_read_bytes,dram_write_bytes,time_ms,binding\n";
  for (const TileCandidate& c : r.candidates) {
    const bool ok = c.rejected.empty();
    std::string reason = c.rejected;
    for (char& ch : reason) {
      if (ch == ',' || ch == '"') ch = ';';
    }
    out += fmt::format("{},{},{},{},{},{},{},\"{}\",", r.spec.schedule, r.pass, c.tiles.br, c.tiles.bc,
                       c.kernel.warps, c.kernel.stages, ok, reason);
    if (ok) {
      out += fmt::format("{},{},{},{},{},{},{},{},{},{},{}\n", c.launch.smem.value, c.launch.registers_per_thread,
                         c.occupancy.blocks_per_sm, c.occupancy.limited_by, c.predicted.l2_read_sectors(),
                         c.predicted.l2_write_sectors(), c.predicted.l2_red_sectors(), c.predicted.dram_read().value,
                         c.predicted.dram_write().value, c.time.total_s * 1e3, c.time.binding);
    } else {
      out += ",,,,,,,,,,\n";
    }
  }
  return out;
}

}  // namespace iosim::report
