#include "src/report/json_writer.h"
#include "src/report/run_report.h"

namespace iosim::report {

namespace {

void traffic(JsonWriter& w, const Traffic& t) {
  w.begin_object()
      .field("read_bytes", t.read_bytes.value)
      .field("write_bytes", t.write_bytes.value)
      .field("read_elements", t.read_elements.value)
      .field("write_elements", t.write_elements.value)
      .end_object();
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

void schedule(JsonWriter& w, const ScheduleRun& s) {
  w.begin_object().field("name", s.name).field("pass", name(s.pass));
  w.key("tile").begin_object().field("br", s.tiles.br).field("bc", s.tiles.bc).end_object();
  w.key("hbm");
  traffic(w, s.ledger.total(Level::hbm));
  w.key("sram");
  traffic(w, s.ledger.total(Level::sram));
  w.key("tensors").begin_object();
  for (Tensor t : kAllTensors) {
    const Traffic& tr = s.ledger.at(Level::hbm, t);
    if (tr.bytes().value == 0) continue;
    w.key(name(t));
    traffic(w, tr);
  }
  w.end_object();
  w.field("transfers", s.ledger.transfers());
  w.field("sram_peak_bytes", s.sram.peak().value).field("sram_limit_bytes", s.sram_limit.value);
  sram(w, s);
  w.key("flops")
      .begin_object()
      .field("matmul", s.ledger.matmul_flops().value)
      .field("vector", s.ledger.vector_flops().value)
      .field("total", s.ledger.flops().value)
      .end_object();
  w.key("bound")
      .begin_object()
      .field("formula", s.upper.formula)
      .field("m_elements", s.m_elements)
      .field("value", s.upper.value)
      .field("ratio", s.upper_ratio())
      .end_object();
  w.key("notes").begin_array();
  for (const std::string& n : s.notes) w.value(n);
  w.end_array().end_object();
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
      .field("sram_per_block_bytes", r.hardware.sm.sram_per_block.value)
      .end_object();
  w.key("runs").begin_array();
  for (const ProblemRuns& pr : r.runs) {
    const Problem& p = pr.problem;
    w.begin_object().key("problem").begin_object();
    w.field("batch", p.batch).field("heads", p.heads).field("n", p.n).field("n_kv", p.n_kv).field("d", p.d);
    w.field("dtype", name(p.dtype)).end_object();
    w.key("schedules").begin_array();
    for (const ScheduleRun& s : pr.schedules) schedule(w, s);
    w.end_array().end_object();
  }
  w.end_array().end_object();
  return w.str();
}

}  // namespace iosim::report
