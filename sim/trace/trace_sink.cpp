#include "sim/trace/trace_sink.h"

#include <algorithm>
#include <utility>

#include "sim/core/error.h"
#include "sim/core/ledger.h"

namespace iosim {

namespace {

/// Tensors whose rows are keys: tiled by B_c.
bool key_side(Tensor t) { return shape_of(t).rows == Extent::n_kv; }

/// The n × n_kv matrices: columns tiled by B_c.
bool score_shaped(Tensor t) { return shape_of(t).cols == Extent::n_kv; }

std::uint64_t at_least_one(std::uint64_t v) { return std::max<std::uint64_t>(v, 1); }

}  // namespace

TraceSink::TraceSink(std::string schedule, Pass pass, const Problem& p, TileShape tiles) : mask_(p) {
  trace_.schedule = std::move(schedule);
  trace_.pass = pass;
  trace_.problem = p;
  trace_.tiles = tiles;
  if (p.paged()) trace_.block_table = BlockTable(p);
}

void TraceSink::on_transfer(const Transfer& t) {
  const Elements e = t.tile.elements();
  const Bytes b = bytes_of(e, storage_type(t.tile.tensor, trace_.problem.dtype));
  Traffic moved;
  if (t.dir != Direction::sram_to_hbm) {
    moved.read_elements = e;
    moved.read_bytes = b;
  }
  if (t.dir != Direction::hbm_to_sram) {
    moved.write_elements = e;
    moved.write_bytes = b;
  }
  for (std::uint64_t k = 0; k < t.times; ++k) {
    const std::uint64_t step = trace_.transfers.size();
    trace_.transfers.push_back({step, t.tile, t.dir, {}, e, b});
    held_.apply(t.tile, t.dir, step);
    trace_.hbm += moved;
    trace_.tensors[index(t.tile.tensor)] += moved;
    switch (t.dir) {
      case Direction::hbm_to_sram: ++trace_.loads; break;
      case Direction::sram_to_hbm: ++trace_.stores; break;
      case Direction::reduce: ++trace_.reduces; break;
    }
  }
}

void TraceSink::on_compute(const Compute& c) {
  trace_.compute.add(c);
  if (c.kind != ComputeKind::matmul) return;
  const HeldTile* q = held_.find(Tensor::Q);
  const HeldTile* k = held_.find(Tensor::K);
  if (q == nullptr || k == nullptr) return;
  ScoreVisit v{trace_.visits.size(), trace_.transfers.size(), q->tile.row, q->tile.rows, k->tile.row, k->tile.rows, {}};
  if (!trace_.visits.empty()) {
    const ScoreVisit& last = trace_.visits.back();
    if (last.row == v.row && last.rows == v.rows && last.col == v.col && last.cols == v.cols) return;
  }
  v.index = {v.row / at_least_one(trace_.tiles.br), v.col / at_least_one(trace_.tiles.bc)};
  // Each row sees one run of keys, both ends moving right row by row: the tile is whole when its
  // top-right score (the diagonal's side) and its bottom-left one (the window's side) are seen.
  v.masked = v.rows > 0 && v.cols > 0 &&
             !(mask_.sees(v.row, v.col + v.cols - 1) && mask_.sees(v.row + v.rows - 1, v.col));
  trace_.visits.push_back(v);
}

Trace TraceSink::take() {
  Trace t = std::move(trace_);
  for (const TraceTransfer& x : t.transfers) {
    const std::size_t k = index(x.tile.tensor);
    t.col_block[k] = std::max(t.col_block[k], x.tile.cols);
    t.split_cols[k] = t.split_cols[k] || x.tile.col != 0;
    t.split_slices[k] = t.split_slices[k] || x.tile.slice != 0;
  }
  for (TraceTransfer& x : t.transfers) x.index = tile_index(t, x.tile);
  trace_ = Trace{};
  held_ = Residency{};
  return t;
}

TileIndex tile_index(const Trace& t, const TileRef& tile) {
  if (tile.tensor == Tensor::BT) return {tile.row * t.problem.page_size / at_least_one(t.tiles.bc), 0};
  const std::uint64_t rows = key_side(tile.tensor) ? t.tiles.bc : t.tiles.br;
  const std::uint64_t cols = score_shaped(tile.tensor) ? t.tiles.bc : t.col_block[index(tile.tensor)];
  return {tile.row / at_least_one(rows), tile.col / at_least_one(cols)};
}

std::vector<PageRead> pages_read(const Trace& t, const TileRef& tile) {
  std::vector<PageRead> out;
  if (!t.problem.paged()) return out;
  PageRun run;
  if (tile.tensor == Tensor::BT) {
    run = {tile.row, tile.rows};  // a block-table tile's rows are the pages whose entries it holds
  } else if (tile.tensor == Tensor::K || tile.tensor == Tensor::V) {
    Span rows;
    rows.begin = tile.row;
    rows.size = tile.rows;
    run = pages_of(t.problem, rows);
  }
  for (std::uint64_t k = run.first; k < run.first + run.count; ++k) out.push_back({k, t.block_table.slot(0, k)});
  return out;
}

std::string tile_label(const Trace& t, const TileRef& tile) {
  const TileIndex ix = tile_index(t, tile);
  std::string s(name(tile.tensor));
  s += '_';
  s += std::to_string(ix.i);
  if (score_shaped(tile.tensor) || t.split_cols[index(tile.tensor)]) {
    s += ',';
    s += std::to_string(ix.j);
  }
  if (t.split_slices[index(tile.tensor)]) {
    s += "/s";
    s += std::to_string(tile.slice);
  }
  return s;
}

Trace trace_schedule(const Schedule& s, const ScheduleContext& ctx, const TraceLimits& limits) {
  const Problem& p = ctx.problem;
  if (p.batch_heads() != 1) {
    throw InputError("trace: a trace follows one head, so batch × heads must be 1 (got " +
                     std::to_string(p.batch_heads()) + "); the other heads repeat it");
  }
  for (const auto& [what, v] : {std::pair{"n", p.n}, std::pair{"n_kv", p.n_kv}}) {
    if (v > limits.max_n) {
      throw InputError("trace: " + std::string(what) + " = " + std::to_string(v) + " is above the limit of " +
                       std::to_string(limits.max_n) + " for a trace (every tile is listed)");
    }
  }
  const std::string label = std::string(s.name()) + " " + std::string(name(s.pass()));
  Ledger count(p.dtype);
  s.emit(Emitter(count, Walk::runs));
  if (count.transfers() > limits.max_transfers) {
    throw InputError("trace: " + label + " would list " + std::to_string(count.transfers()) +
                     " transfers, above the limit of " + std::to_string(limits.max_transfers) +
                     " (give a smaller --n or larger tiles)");
  }
  TraceSink sink(std::string(s.name()), s.pass(), p, s.tiles());
  s.emit(Emitter(sink, Walk::each));
  return sink.take();
}

std::vector<HeldTile> resident_after(const Trace& t, std::uint64_t step) {
  Residency r;
  const std::uint64_t end = std::min<std::uint64_t>(step + 1, t.transfers.size());
  for (std::uint64_t k = 0; k < end; ++k) r.apply(t.transfers[k].tile, t.transfers[k].dir, k);
  return r.tiles();
}

std::optional<std::size_t> visit_at(const Trace& t, std::uint64_t step) {
  const std::vector<HeldTile> held = resident_after(t, step);
  const auto find = [&](Tensor x) {
    const auto it = std::find_if(held.begin(), held.end(), [&](const HeldTile& h) { return h.tile.tensor == x; });
    return it == held.end() ? nullptr : &it->tile;
  };
  const TileRef* q = find(Tensor::Q);
  const TileRef* k = find(Tensor::K);
  if (q == nullptr || k == nullptr) return std::nullopt;
  std::optional<std::size_t> found;
  for (const ScoreVisit& v : t.visits) {
    if (v.row != q->row || v.rows != q->rows || v.col != k->row || v.cols != k->rows) continue;
    if (found && v.before > step + 1) break;
    found = v.visit;
  }
  return found;
}

VisitOrder visit_order(const Trace& t) {
  VisitOrder o{true, true};
  for (std::size_t k = 1; k < t.visits.size(); ++k) {
    const TileIndex a = t.visits[k - 1].index, b = t.visits[k].index;
    o.by_columns = o.by_columns && (a.j < b.j || (a.j == b.j && a.i < b.i));
    o.by_rows = o.by_rows && (a.i < b.i || (a.i == b.i && a.j < b.j));
  }
  return o;
}

}  // namespace iosim
