#include "src/report/execution_report.h"
#include "src/report/json_writer.h"
#include "src/report/measured_error.h"
#include "src/report/prediction_report.h"
#include "sim/core/problem.h"
#include "src/report/run_report.h"

namespace iosim::report {

namespace {

void traffic_fields(JsonWriter& w, const Traffic& t) {
  w.field("read_bytes", t.read_bytes.value)
      .field("write_bytes", t.write_bytes.value)
      .field("read_elements", t.read_elements.value)
      .field("write_elements", t.write_elements.value);
}

void traffic(JsonWriter& w, const Traffic& t) {
  w.begin_object();
  traffic_fields(w, t);
  w.end_object();
}

void bound(JsonWriter& w, const char* key, const BoundValue& b, double ratio) {
  w.key(key).begin_object().field("formula", b.formula).field("value", b.value).field("ratio", ratio).end_object();
}

void sram(JsonWriter& w, const ScheduleRun& s) {
  w.key("sram_phases").begin_array();
  for (const SramPhase& p : s.sram.phases) {
    w.begin_object().field("name", p.name).field("shared_bytes", p.bytes(Storage::shared).value);
    w.field("register_bytes", p.bytes(Storage::registers).value);
    w.key("tiles").begin_array();
    for (const ResidentTile& t : p.tiles) {
      w.begin_object()
          .field("label", t.label)
          .field("rows", t.rows)
          .field("cols", t.cols)
          .field("dtype", name(t.type))
          .field("copies", t.copies)
          .field("storage", t.where == Storage::shared ? "shared" : "registers")
          .field("bytes", t.bytes().value)
          .end_object();
    }
    w.end_array().end_object();
  }
  w.end_array();
}

void schedule(JsonWriter& w, const Problem& p, const ScheduleRun& s, const std::vector<ValidatedKind>& validated) {
  w.begin_object().field("name", s.name).field("pass", name(s.pass));
  w.key("tile").begin_object().field("br", s.tiles.br).field("bc", s.tiles.bc).field("source", s.tile_source).end_object();
  w.key("hbm");
  traffic(w, s.ledger.total(Level::hbm));
  w.key("sram");
  traffic(w, s.ledger.total(Level::sram));
  w.key("tensors").begin_object();
  for (Tensor t : kAllTensors) {
    const Traffic& tr = s.ledger.at(Level::hbm, t);
    if (tr.bytes().value == 0) continue;
    w.key(name(t)).begin_object();
    traffic_fields(w, tr);
    w.field("size_elements", tensor_elements(p, t));
    w.end_object();
  }
  w.end_object();
  w.field("transfers", s.ledger.transfers());
  w.field("sram_peak_bytes", s.sram.peak().value).field("sram_limit_bytes", s.sram_limit.value);
  sram(w, s);
  w.key("flops")
      .begin_object()
      .field("matmul", s.ledger.matmul_flops().value)
      .field("vector", s.ledger.vector_flops().value)
      .field("special", s.ledger.special_flops().value)
      .field("total", s.ledger.flops().value)
      .end_object();
  w.field("m_elements", s.m_elements).field("variant", s.variant);
  bound(w, "bound", s.upper, s.upper_ratio());
  bound(w, "lower_bound", s.lower, s.lower_ratio());
  w.key("kernel_config").begin_object().field("warps", std::uint64_t{s.kernel.warps});
  w.field("stages", std::uint64_t{s.kernel.stages}).field("kernels", name(s.kernel.source)).end_object();
  if (s.predicted) {
    w.key("predicted");
    prediction_json(w, *s.predicted);
    measured_error_json(w, validated_kind(s, p, validated));
  }
  if (s.execution) {
    w.key("execution");
    execution_json(w, *s.execution);
  }
  w.key("notes").begin_array();
  for (const std::string& n : s.notes) w.value(n);
  w.end_array().end_object();
}

/// Per schedule run in both passes, the sum of the two.
void totals(JsonWriter& w, const ProblemRuns& pr) {
  w.key("totals").begin_array();
  for (const ScheduleRun& a : pr.schedules) {
    if (a.pass != Pass::fwd) continue;
    for (const ScheduleRun& b : pr.schedules) {
      if (b.pass != Pass::bwd || b.name != a.name) continue;
      Ledger sum = a.ledger;
      sum += b.ledger;
      w.begin_object().field("name", a.name).field("passes", "fwd+bwd").key("hbm");
      traffic(w, sum.total(Level::hbm));
      w.key("flops").begin_object().field("matmul", sum.matmul_flops().value).field("vector", sum.vector_flops().value);
      w.field("special", sum.special_flops().value);
      w.field("total", sum.flops().value).end_object().end_object();
    }
  }
  w.end_array();
}

}  // namespace

std::string render_json(const RunReport& r) {
  JsonWriter w;
  w.begin_object().field("schema_version", kSchemaVersion);
  w.key("config")
      .begin_object()
      .field("file", r.config_file)
      .field("name", r.hardware.name)
      .field("arch", r.hardware.arch)
      .field("sram_per_block_bytes", r.hardware.sm.sram_per_block.value);
  if (!r.hardware.corrected.empty()) {  // only a config with corrected_by: has them
    w.key("corrected").begin_array();
    for (const CorrectedFigure& c : r.hardware.corrected) {
      w.begin_object_one_line().field("key", c.key).field("datasheet", c.datasheet).field("share", c.share);
      w.field("value", c.value).key("peers").begin_array();
      for (const std::string& p : c.peers) w.value(p);
      w.end_array().end_object();
    }
    w.end_array();
  }
  w.end_object();
  w.key("runs").begin_array();
  for (const ProblemRuns& pr : r.runs) {
    const Problem& p = pr.problem;
    w.begin_object().key("problem").begin_object();
    w.field("batch", p.batch).field("heads", p.heads).field("kv_heads", p.kv_head_count()).field("n", p.n);
    w.field("n_kv", p.n_kv).field("d", p.d).field("dtype", name(p.dtype)).field("causal", p.causal);
    if (p.window != 0) w.field("window", p.window);  // absent without a window, as before it existed
    if (p.paged()) {  // absent without pages, as the window
      w.field("page_size", p.page_size).field("page_order", p.page_order == PageOrder::contiguous ? "contiguous" : "random");
      if (p.page_order == PageOrder::random) w.field("page_seed", p.page_seed);
    }
    w.end_object();
    w.key("schedules").begin_array();
    for (const ScheduleRun& s : pr.schedules) schedule(w, p, s, r.validated);
    w.end_array();
    totals(w, pr);
    w.end_object();
  }
  w.end_array().end_object();
  return w.str();
}

}  // namespace iosim::report
