#include "src/report/trace_report.h"

#include <fmt/format.h>

#include "sim/core/escape.h"
#include "src/report/json_writer.h"
#include "src/report/mask_text.h"
#include "src/report/pages_text.h"
#include "src/report/text_table.h"
#include "src/report/units_format.h"

namespace iosim::report {

namespace {

std::string range(std::uint64_t begin, std::uint64_t count) { return fmt::format("[{}, {})", begin, begin + count); }

/// "Q_1 K_0 V_0 O_1* l_1* m_1*": the tiles held, * marking those written back.
std::string held_text(const Trace& t, const Residency& r) {
  std::string s;
  for (const HeldTile& h : r.tiles()) {
    if (!s.empty()) s += ' ';
    s += tile_label(t, h.tile) + (h.written_back ? "*" : "");
  }
  return s;
}

/// "2→5 3→0": each page a transfer reads, logical → physical (the table's column; empty when none).
std::string pages_cell(const std::vector<PageRead>& pages) {
  std::string s;
  for (const PageRead& r : pages) s += fmt::format("{}{}→{}", s.empty() ? "" : " ", r.page, r.slot);
  return s;
}

/// The block table of the head traced, logical → physical page, every page.
std::vector<PageRead> table_pages(const Trace& t) {
  std::vector<PageRead> out;
  for (std::uint64_t k = 0; k < t.block_table.pages(); ++k) out.push_back({k, t.block_table.slot(0, k)});
  return out;
}

std::string visit_label(const ScoreVisit& v) { return fmt::format("S_{},{}", v.index.i, v.index.j); }

struct TensorCounts {
  std::uint64_t loads = 0;
  std::uint64_t stores = 0;
  std::uint64_t reduces = 0;
};

std::array<TensorCounts, kTensorCount> counts_per_tensor(const Trace& t) {
  std::array<TensorCounts, kTensorCount> c{};
  for (const TraceTransfer& x : t.transfers) {
    TensorCounts& k = c[index(x.tile.tensor)];
    switch (x.dir) {
      case Direction::hbm_to_sram: ++k.loads; break;
      case Direction::sram_to_hbm: ++k.stores; break;
      case Direction::reduce: ++k.reduces; break;
    }
  }
  return c;
}

std::string trace_heading(const TraceReport& r, const Trace& t) {
  const Problem& p = t.problem;
  std::string out =
      fmt::format("iosim trace · {} ({}) · {} {} · n {}, n_kv {}, d {}, {}{}\n", escape_controls(r.hardware.name),
                  escape_controls(r.config_file),
                  t.schedule, name(t.pass), p.n, p.n_kv, p.d, name(p.dtype), mask_text(p) + pages_text(p));
  out += fmt::format(
      "tiles B_r = {}, B_c = {}: T_r = {} Q tiles × T_c = {} K/V tiles; {} transfers, {} score "
      "tile{} S_ij = Q_i K_jᵀ computed, visits numbered from 0 (order: {})\n",
      t.tiles.br, t.tiles.bc, ceil_div(p.n, t.tiles.br), ceil_div(p.n_kv, t.tiles.bc), grouped(t.transfers.size()),
      grouped(t.visits.size()), t.visits.size() == 1 ? "" : "s", order_name(visit_order(t)));
  out += "load: HBM → SRAM · store: SRAM → HBM · reduce: atomic add into HBM (read and written there)\n";
  if (p.paged()) {
    out += fmt::format(
        "paged K/V: {} pages of {} tokens; a K/V load reads the block table's entries of its pages first (BT_j: "
        "those of K/V tile j); pages column: logical page → physical page in HBM\nblock table: {}\n",
        t.block_table.pages(), p.page_size, pages_cell(table_pages(t)));
  }
  out += fmt::format("in SRAM after: {}\n\n", residency_rule());
  return out;
}

std::string transfer_table(const Trace& t) {
  using A = TextTable::Align;
  // Paged K/V adds a column before the last: the pages each K, V or block-table transfer reads.
  const bool paged = t.problem.paged();
  std::vector<std::string> header{"step", "dir", "tile", "rows", "cols", "bytes"};
  std::vector<A> align{A::right, A::left, A::left, A::left, A::left, A::right};
  if (paged) {
    header.emplace_back("pages");
    align.push_back(A::left);
  }
  header.emplace_back("in SRAM after (* written back)");
  align.push_back(A::left);
  TextTable table(std::move(header), std::move(align));
  const auto row = [&](std::vector<std::string> cells, std::string pages, std::string held) {
    if (paged) cells.push_back(std::move(pages));
    cells.push_back(std::move(held));
    table.add(std::move(cells));
  };
  Residency held;
  std::size_t next_visit = 0;
  const auto visits_before = [&](std::uint64_t step) {
    for (; next_visit < t.visits.size() && t.visits[next_visit].before <= step; ++next_visit) {
      const ScoreVisit& v = t.visits[next_visit];
      row({"", "compute", visit_label(v), range(v.row, v.rows), range(v.col, v.cols), ""}, "",
          fmt::format("= Q_{} K_{}ᵀ, visit {}{}", v.index.i, v.index.j, v.visit, v.masked ? ", masked" : ""));
    }
  };
  for (const TraceTransfer& x : t.transfers) {
    visits_before(x.step);
    held.apply(x.tile, x.dir, x.step);
    row({std::to_string(x.step), std::string(direction_name(x.dir)), tile_label(t, x.tile),
         range(x.tile.row, x.tile.rows), range(x.tile.col, x.tile.cols), grouped(x.bytes.value)},
        pages_cell(pages_read(t, x.tile)), held_text(t, held));
  }
  visits_before(t.transfers.size());
  return table.render("  ");
}

std::string totals_text(const Trace& t) {
  using A = TextTable::Align;
  TextTable table({"tensor", "loads", "stores", "reduces", "HBM read", "HBM written"},
                  {A::left, A::right, A::right, A::right, A::right, A::right});
  const auto counts = counts_per_tensor(t);
  for (Tensor x : kAllTensors) {
    const TensorCounts& c = counts[index(x)];
    if (c.loads + c.stores + c.reduces == 0) continue;
    const Traffic& h = t.tensors[index(x)];
    table.add({std::string(name(x)), grouped(c.loads), grouped(c.stores), grouped(c.reduces),
               grouped(h.read_bytes.value) + " B", grouped(h.write_bytes.value) + " B"});
  }
  table.add({"total", grouped(t.loads), grouped(t.stores), grouped(t.reduces), grouped(t.hbm.read_bytes.value) + " B",
             grouped(t.hbm.write_bytes.value) + " B"});
  std::string out = "\ntotals (the ledger's HBM counts for the same run):\n" + table.render("  ");
  const ComputeSummary& c = t.compute;
  out +=
      fmt::format("arithmetic, summed: {} matmul FLOPs, {} vector FLOPs, {} exp/log, over {} inner steps\n",
                  grouped(c.matmul.value), grouped(c.vector.value), grouped(c.special.value), grouped(c.inner_steps));
  return out;
}

void problem_json(JsonWriter& w, const Problem& p) {
  w.key("problem").begin_object_one_line();
  w.field("batch", p.batch).field("heads", p.heads).field("n", p.n).field("n_kv", p.n_kv).field("d", p.d);
  w.field("dtype", name(p.dtype)).field("causal", p.causal);
  if (p.window > 0) w.field("window", p.window);
  w.end_object();
}

/// `[[logical, physical], …]`: pages as the block table maps them.
void pages_json(JsonWriter& w, std::string_view key, const std::vector<PageRead>& pages) {
  w.key(key).begin_array_one_line();
  for (const PageRead& r : pages) w.begin_array_one_line().value(r.page).value(r.slot).end_array();
  w.end_array();
}

void pair_json(JsonWriter& w, std::string_view key, std::uint64_t a, std::uint64_t b) {
  w.key(key).begin_array_one_line().value(a).value(b).end_array();
}

void traffic_json(JsonWriter& w, const Traffic& t) {
  w.field("read_bytes", t.read_bytes.value).field("write_bytes", t.write_bytes.value);
  w.field("read_elements", t.read_elements.value).field("write_elements", t.write_elements.value);
}

void transfers_json(JsonWriter& w, const Trace& t, const TracePrediction* pred) {
  w.key("transfers").begin_array();
  Residency held;
  for (const TraceTransfer& x : t.transfers) {
    held.apply(x.tile, x.dir, x.step);
    w.begin_object_one_line().field("step", x.step).field("dir", direction_name(x.dir));
    w.field("tensor", name(x.tile.tensor));
    pair_json(w, "rows", x.tile.row, x.tile.row + x.tile.rows);
    pair_json(w, "cols", x.tile.col, x.tile.col + x.tile.cols);
    pair_json(w, "tile", x.index.i, x.index.j);
    if (t.split_slices[index(x.tile.tensor)]) w.field("slice", x.tile.slice);
    if (const std::vector<PageRead> pages = pages_read(t, x.tile); !pages.empty()) pages_json(w, "pages", pages);
    w.field("bytes", x.bytes.value);
    if (pred != nullptr && pred->per_step) {
      const TransferL2& l2 = pred->steps.at(x.step);
      w.key("l2").begin_object_one_line().field("read_sectors", l2.read_sectors);
      w.field("hit_sectors", l2.hit_sectors()).field("miss_sectors", l2.miss_sectors);
      w.field("write_sectors", l2.write_sectors).end_object();
    }
    w.key("sram").begin_array();
    for (const HeldTile& h : held.tiles()) w.value(tile_label(t, h.tile) + (h.written_back ? "*" : ""));
    w.end_array().end_object();
  }
  w.end_array();
}

/// The GPU model's view of the trace (--predict): where each block ran, the L2 per wave, the totals.
void predicted_json(JsonWriter& w, const TracePrediction& p) {
  w.key("predicted").begin_object();
  w.field("per_step", p.per_step);
  if (!p.per_step) {
    w.field("why_not_per_step",
            "the trace's transfers are the count's, not the kernels' (standard attention is counted in whole "
            "matrices, as the paper counts it; its kernels move panels)");
  }
  w.field("l2_read_sectors", p.prediction.l2_read_sectors()).field("l2_write_sectors", p.prediction.l2_write_sectors());
  w.field("l2_red_sectors", p.prediction.l2_red_sectors()).field("dram_read_bytes", p.prediction.dram_read().value);
  w.field("dram_write_bytes", p.prediction.dram_write().value);
  w.key("kernels").begin_array();
  for (std::size_t k = 0; k < p.kernels.size(); ++k) {
    const KernelPlaces& kp = p.kernels[k];
    w.begin_object().field("name", kp.name).field("concurrent", kp.concurrent).field("sms", kp.sms);
    w.key("blocks").begin_array();
    for (const BlockPlace& b : kp.blocks) {
      w.begin_object_one_line().field("block", b.block).field("wave", b.wave).field("slot", b.slot).field("sm", b.sm);
      if (p.per_step) w.field("first_step", b.first_step);
      w.field("steps", b.steps).end_object();
    }
    w.end_array();
    w.key("waves").begin_array();
    for (const WaveL2& v : p.waves.at(k).waves) {
      w.begin_object_one_line().field("wave", v.wave).field("blocks", v.blocks).field("read_sectors", v.read_sectors);
      w.field("read_hit_sectors", v.read_hit_sectors).field("kv_read_sectors", v.kv_read_sectors);
      w.field("kv_read_hit_sectors", v.kv_read_hit_sectors).field("write_sectors", v.write_sectors).end_object();
    }
    w.end_array().end_object();
  }
  w.end_array().end_object();
}

void trace_json(JsonWriter& w, const Trace& t, const TracePrediction* pred) {
  w.begin_object().field("schedule", t.schedule).field("pass", name(t.pass));
  problem_json(w, t.problem);
  w.key("tile").begin_object_one_line().field("br", t.tiles.br).field("bc", t.tiles.bc).end_object();
  w.key("grid").begin_object_one_line();
  w.field("t_r", ceil_div(t.problem.n, t.tiles.br)).field("t_c", ceil_div(t.problem.n_kv, t.tiles.bc)).end_object();
  w.field("order", order_name(visit_order(t)));
  w.field("residency_rule", residency_rule());
  if (t.problem.paged()) {
    w.key("paging").begin_object_one_line().field("page_size", t.problem.page_size);
    w.field("pages", t.block_table.pages());
    w.field("page_order", t.problem.page_order == PageOrder::contiguous ? "contiguous" : "random");
    if (t.problem.page_order == PageOrder::random) w.field("seed", t.problem.page_seed);
    pages_json(w, "block_table", table_pages(t));
    w.end_object();
  }
  transfers_json(w, t, pred);
  w.key("visits").begin_array();
  for (const ScoreVisit& v : t.visits) {
    w.begin_object_one_line().field("visit", v.visit);
    if (v.before == 0) {
      w.key("after_step").null();
    } else {
      w.field("after_step", v.before - 1);
    }
    pair_json(w, "tile", v.index.i, v.index.j);
    pair_json(w, "rows", v.row, v.row + v.rows);
    pair_json(w, "cols", v.col, v.col + v.cols);
    if (t.problem.causal) w.field("masked", v.masked);
    w.end_object();
  }
  w.end_array();
  const ComputeSummary& c = t.compute;
  w.key("compute").begin_object_one_line().field("matmul_flops", c.matmul.value).field("vector_flops", c.vector.value);
  w.field("special_ops", c.special.value).field("inner_steps", c.inner_steps).end_object();
  w.key("totals").begin_object();
  w.field("transfers", std::uint64_t{t.transfers.size()}).field("loads", t.loads).field("stores", t.stores);
  w.field("reduces", t.reduces);
  traffic_json(w, t.hbm);
  w.key("tensors").begin_object();
  const auto counts = counts_per_tensor(t);
  for (Tensor x : kAllTensors) {
    const TensorCounts& k = counts[index(x)];
    if (k.loads + k.stores + k.reduces == 0) continue;
    w.key(name(x)).begin_object_one_line();
    traffic_json(w, t.tensors[index(x)]);
    w.end_object();
  }
  w.end_object().end_object();
  if (pred != nullptr) predicted_json(w, *pred);
  w.end_object();
}

}  // namespace

std::string_view direction_name(Direction d) {
  switch (d) {
    case Direction::hbm_to_sram: return "load";
    case Direction::sram_to_hbm: return "store";
    case Direction::reduce: return "reduce";
  }
  return "?";
}

std::string_view order_name(VisitOrder o) {
  if (o.by_columns && o.by_rows) return "one row or column";
  if (o.by_columns) return "columns";
  if (o.by_rows) return "rows";
  return "other";
}

std::string_view residency_rule() {
  return "one tile per tensor; a load replaces that tensor's tile, a store or reduce marks its tile written back, "
         "and written-back tiles leave at the next load";
}

std::string render_trace_text(const TraceReport& r) {
  std::string out;
  for (const Trace& t : r.traces) {
    if (!out.empty()) out += '\n';
    out += trace_heading(r, t) + transfer_table(t) + totals_text(t);
  }
  return out;
}

std::string render_trace_json(const TraceReport& r) {
  JsonWriter w;
  w.begin_object().field("schema_version", std::uint64_t{1});
  w.key("config").begin_object_one_line().field("file", r.config_file).field("name", r.hardware.name).end_object();
  w.key("traces").begin_array();
  for (std::size_t k = 0; k < r.traces.size(); ++k) {
    trace_json(w, r.traces[k], r.predicted.empty() ? nullptr : &r.predicted.at(k));
  }
  w.end_array().end_object();
  return w.str();
}

}  // namespace iosim::report
