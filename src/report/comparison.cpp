#include "src/report/comparison.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "src/report/prediction_report.h"
#include "src/report/text_table.h"
#include "src/report/units_format.h"

namespace iosim::report {

double CounterRow::error() const {
  if (measured == 0) return predicted == 0 ? 0.0 : std::numeric_limits<double>::quiet_NaN();
  return (measured - predicted) / measured;
}

std::string percent(double relative) {
  if (std::isnan(relative)) return "-";
  return fmt::format("{:+.2f}%", 100 * relative);
}

namespace {

constexpr double kCounterSectorBytes = 32;  ///< the lts__t_sectors_* counters count 32-byte sectors

/// The L2 reads from the SMs: lts__t_sectors_srcunit_tex_op_read, the L2's lookups, beside the model's
/// lookups (fewer than the sectors asked when the model merges reads: read_merge.h); or for a kernel
/// that loads by TMA the bytes TMA loads (that L2-side counter sees only part of TMA's reads:
/// docs/validation.md), beside every sector the model delivers through the crossbar, merged or not.
/// `lookups` and `delivered` are the model's, in bytes.
CounterRow l2_read_row(const gpu::Measurement& m, double lookups, double delivered, double sector_bytes) {
  if (m.tma_loads) {
    return {"L2 reads from the SMs", "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld (TMA)", "B", delivered,
            m.counters.tma_read_bytes, m.has_counters && m.has_tma_counter, false};
  }
  return {"L2 reads from the SMs", "lts__t_sectors_srcunit_tex_op_read × 32", "B", lookups,
          m.counters.l2_read_sectors * sector_bytes, m.has_counters, false};
}

}  // namespace

Comparison compare(const ScheduleRun& model, const gpu::Measurement& m) {
  Comparison c;
  c.schedule = model.name;
  c.pass = std::string(name(model.pass));
  c.spec = m.spec;
  c.measured = m;
  c.model = model;
  const PredictedRun& p = *model.predicted;
  const double sb = p.cold.sector_bytes;
  const gpu::Counters& k = m.counters;
  const bool on = m.has_counters;
  const RunWavefronts waves = run_smem_wavefronts(p);
  c.rows = {
      l2_read_row(m, static_cast<double>(p.cold.l2_read_sectors()) * sb,
                  static_cast<double>(p.cold.xbar_read_sectors()) * sb, sb),
      {"L2 writes from the SMs", "lts__t_sectors_srcunit_tex_op_write × 32", "B",
       static_cast<double>(p.cold.l2_write_sectors()) * sb, k.l2_write_sectors * sb, on, false},
      {"L2 reductions (atomics)", "lts__t_sectors_srcunit_tex_op_red × 32", "B",
       static_cast<double>(p.cold.l2_red_sectors()) * sb, k.l2_red_sectors * sb, on, false},
      {"DRAM reads", "dram__bytes_read", "B", static_cast<double>(p.cold.dram_read().value), k.dram_read_bytes, on,
       false},
      {"DRAM writes (with the drain)", "dram__bytes_write", "B", static_cast<double>(p.cold.dram_write().value),
       k.dram_write_bytes, on, false},
      {"tensor-core FLOPs", "sm__ops_path_tensor_*", "FLOP", static_cast<double>(model.ledger.matmul_flops().value),
       k.tensor_ops, on && k.tensor_ops > 0, false},
      {"shared-memory wavefronts",
       "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}" +
           (waves.estimated.empty() ? std::string() : " (estimated for " + waves.estimated + ")"),
       "", waves.total, k.smem_ld_wavefronts + k.smem_st_wavefronts, on, !waves.estimated.empty()},
      {"time, cold L2", "CUDA events, median", "ms", p.cold_time.total_s * 1e3, m.time.median_ms, true, false},
      {"time, warm L2", "CUDA events, median", "ms", p.warm_time.total_s * 1e3, m.time_warm.median_ms, true, false},
      {"time, cold, at datasheet peaks", "CUDA events, median", "ms", p.cold_bound.total_s * 1e3, m.time.median_ms,
       true, false},
  };
  return c;
}

Comparison measured_only(const std::string& schedule, Pass pass, const gpu::Measurement& m, KernelRequest kernel) {
  Comparison c;
  c.schedule = schedule;
  c.pass = std::string(name(pass));
  c.spec = m.spec;
  c.measured = m;
  c.model.name = schedule;
  c.model.pass = pass;
  c.model.kernel = kernel;
  const double none = std::numeric_limits<double>::quiet_NaN();
  const gpu::Counters& k = m.counters;
  const bool on = m.has_counters;
  const double sb = kCounterSectorBytes;
  c.rows = {
      l2_read_row(m, none, none, sb),
      {"L2 writes from the SMs", "lts__t_sectors_srcunit_tex_op_write × 32", "B", none, k.l2_write_sectors * sb, on,
       false},
      {"L2 reductions (atomics)", "lts__t_sectors_srcunit_tex_op_red × 32", "B", none, k.l2_red_sectors * sb, on, false},
      {"DRAM reads", "dram__bytes_read", "B", none, k.dram_read_bytes, on, false},
      {"DRAM writes (with the drain)", "dram__bytes_write", "B", none, k.dram_write_bytes, on, false},
      {"tensor-core FLOPs", "sm__ops_path_tensor_*", "FLOP", none, k.tensor_ops, on && k.tensor_ops > 0, false},
      {"shared-memory wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}", "", none,
       k.smem_ld_wavefronts + k.smem_st_wavefronts, on, true},
      {"time, cold L2", "CUDA events, median", "ms", none, m.time.median_ms, true, false},
      {"time, warm L2", "CUDA events, median", "ms", none, m.time_warm.median_ms, true, false},
      {"time, cold, at datasheet peaks", "CUDA events, median", "ms", none, m.time.median_ms, true, false},
  };
  return c;
}

namespace {

std::string value(double v, const std::string& unit) {
  if (unit == "B") return si_bytes(v);
  if (unit == "ms") return fmt::format("{:.4g} ms", v);
  return si_count(v);
}

}  // namespace

std::string render_comparison_table(const Comparison& c, const std::string& gpu_config) {
  const gpu::KernelSpec& s = c.spec;
  std::string out = fmt::format(
      "iosim measure · {} (model: {}) · {} {} · batch {} × heads {}, n {}, n_kv {}, d {}, {}", c.measured.device,
      gpu_config, c.schedule, c.pass, s.batch, s.heads, grouped(static_cast<std::uint64_t>(s.n)),
      grouped(static_cast<std::uint64_t>(s.n_kv)), s.d, name(s.dtype));
  if (s.br != 0) out += fmt::format(" · tile {}×{}", s.br, s.bc);
  out += "\n\n";
  TextTable t({"quantity", "counter", "predicted", "measured", "error"},
              {TextTable::Align::left, TextTable::Align::left, TextTable::Align::right, TextTable::Align::right,
               TextTable::Align::right});
  for (const CounterRow& r : c.rows) {
    t.add({r.quantity + (r.estimate ? " (estimate)" : ""), r.counter, value(r.predicted, r.unit),
           r.available ? value(r.measured, r.unit) : "n/a", r.available ? percent(r.error()) : "-"});
  }
  out += t.render("  ");
  out += "\n  error = (measured − predicted) / measured; DRAM writes include the write-back of dirty lines drained\n"
         "  after the run; times: median of " + std::to_string(c.measured.time.runs) + " runs each\n";
  if (!c.measured.has_counters) out += "  counters unavailable: " + c.measured.counters_error + "\n";
  if (c.measured.tma_loads && c.measured.has_counters && c.measured.has_tma_counter) {
    const double lts = c.measured.counters.l2_read_sectors * kCounterSectorBytes;
    const double tma = c.measured.counters.tma_read_bytes;
    out += fmt::format("  L2 reads: the kernel loads by TMA, counted at the L1 side; lts__t_sectors_srcunit_tex_op_read "
                       "× 32 saw {}{}\n",
                       si_bytes(lts), tma > 0 ? fmt::format(" ({:.0f}% of it)", 100 * lts / tma) : std::string());
  }
  for (const std::string& d : c.measured.dropped_metrics) out += "  metric not collected: " + d + "\n";
  return out;
}

void comparison_json(JsonWriter& w, const Comparison& c) {
  const gpu::KernelSpec& s = c.spec;
  w.begin_object().field("schedule", c.schedule).field("pass", c.pass).field("device", c.measured.device);
  w.field("chip", c.measured.chip);
  w.key("problem").begin_object().field("batch", std::uint64_t(s.batch)).field("heads", std::uint64_t(s.heads));
  w.field("n", std::uint64_t(s.n)).field("n_kv", std::uint64_t(s.n_kv)).field("d", std::uint64_t(s.d));
  w.field("dtype", name(s.dtype)).field("kv_heads", std::uint64_t(gpu::kv_head_count(s))).field("causal", s.causal);
  if (s.window != 0) w.field("window", std::uint64_t(s.window));  // absent without one, as in run JSON
  if (s.page_size != 0) {
    w.field("page_size", std::uint64_t(s.page_size));
    w.field("page_order", s.page_order == PageOrder::contiguous ? "contiguous" : "random");
    if (s.page_order == PageOrder::random) w.field("page_seed", s.page_seed);
  }
  w.end_object();
  w.key("tile").begin_object().field("br", std::uint64_t(s.br)).field("bc", std::uint64_t(s.bc));
  w.field("warps", std::uint64_t{c.model.kernel.warps}).field("stages", std::uint64_t{c.model.kernel.stages});
  if (s.splits != 0) w.field("splits", std::uint64_t(s.splits));  // flashdecode: the K/V splits it ran
  w.end_object();
  w.field("has_counters", c.measured.has_counters).field("counters_error", c.measured.counters_error);
  w.field("tma_loads", c.measured.tma_loads);
  if (c.measured.tma_loads) w.field("lts_read_sectors", c.measured.counters.l2_read_sectors);  // the L2 side's view
  if (c.measured.has_counters) {  // the ranges DRAM writes (with the drain) comes from (cuda/measure.cpp)
    const auto& k = c.measured.counters;
    w.key("dram_write_ranges").begin_object().field("run", k.run_dram_write_bytes);
    w.field("drain", k.drain_dram_write_bytes).field("clean_drain", k.clean_drain_dram_write_bytes).end_object();
  }
  w.key("rows").begin_array();
  for (const CounterRow& r : c.rows) {
    w.begin_object().field("quantity", r.quantity).field("counter", r.counter).field("unit", r.unit);
    if (std::isnan(r.predicted)) {
      w.key("predicted").null();  // measured_only: no prediction
    } else {
      w.field("predicted", r.predicted);
    }
    if (r.available && std::isnan(r.predicted)) {
      w.field("measured", r.measured).key("error").null();
    } else if (r.available) {
      w.field("measured", r.measured).field("error", r.error());
    } else {
      w.key("measured").null().key("error").null();
    }
    w.field("estimate", r.estimate).end_object();
  }
  w.end_array();
  w.key("time_runs").begin_object().field("cold_min_ms", c.measured.time.min_ms).field("cold_max_ms", c.measured.time.max_ms);
  w.field("warm_min_ms", c.measured.time_warm.min_ms).field("warm_max_ms", c.measured.time_warm.max_ms);
  w.field("runs", std::uint64_t(c.measured.time.runs)).end_object();
  w.key("predicted");
  if (c.model.predicted) {
    prediction_json(w, *c.model.predicted);
  } else {
    w.null();
  }
  w.end_object();
}

}  // namespace iosim::report
