#include <fmt/format.h>

#include "sim/core/escape.h"
#include "src/report/run_report.h"

namespace iosim::report {

namespace {

/// `text` as a CSV field: control characters escaped (one record a line), quoted where it must be.
std::string cell(const std::string& text) {
  const std::string s = escape_controls(text);
  if (s.find_first_of(",\"") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

std::string render_csv(const RunReport& r) {
  std::string out =
      "config,batch,heads,kv_heads,n,n_kv,d,dtype,causal,schedule,pass,br,bc,hbm_read_bytes,hbm_write_bytes,"
      "hbm_read_elements,hbm_write_elements,sram_peak_bytes,sram_limit_bytes,flops_matmul,flops_vector,flops_special,"
      "bound_formula,"
      "bound_value,bound_ratio,lower_bound_value,lower_bound_ratio,pred_l2_read_sectors,pred_l2_write_sectors,"
      "pred_l2_red_sectors,pred_dram_read_bytes,pred_dram_write_bytes,pred_time_ms,pred_binding,"
      "pred_warm_dram_read_bytes,pred_warm_time_ms\n";
  for (const ProblemRuns& pr : r.runs) {
    const Problem& p = pr.problem;
    for (const ScheduleRun& s : pr.schedules) {
      const Traffic h = s.ledger.total(Level::hbm);
      std::string pred = ",,,,,,,,";
      if (s.predicted) {
        const PredictedRun& q = *s.predicted;
        pred = fmt::format("{},{},{},{},{},{},{},{},{}", q.cold.l2_read_sectors(), q.cold.l2_write_sectors(),
                           q.cold.l2_red_sectors(), q.cold.dram_read().value, q.cold.dram_write().value,
                           q.cold_time.total_s * 1e3, q.cold_time.binding, q.warm.dram_read().value,
                           q.warm_time.total_s * 1e3);
      }
      out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                         cell(r.hardware.name), p.batch, p.heads, p.kv_head_count(), p.n, p.n_kv, p.d, name(p.dtype),
                         p.causal, s.name, name(s.pass), s.tiles.br, s.tiles.bc, h.read_bytes.value,
                         h.write_bytes.value, h.read_elements.value, h.write_elements.value, s.sram.peak().value,
                         s.sram_limit.value, s.ledger.matmul_flops().value, s.ledger.vector_flops().value,
                         s.ledger.special_flops().value,
                         cell(s.upper.formula), s.upper.value, s.upper_ratio(), s.lower.value, s.lower_ratio(), pred);
    }
  }
  return out;
}

}  // namespace iosim::report
