#include "sim/work_estimate.h"

#include <algorithm>
#include <bit>
#include <optional>
#include <set>
#include <thread>

#include "sim/core/error.h"
#include "sim/core/mask.h"
#include "sim/core/ledger.h"
#include "sim/exec/execute.h"
#include "sim/exec/executor.h"
#include "sim/gpu/address_map.h"
#include "sim/gpu/block_recorder.h"
#include "sim/gpu/fast_replay.h"
#include "sim/gpu/occupancy.h"
#include "sim/schedule/registry.h"

namespace iosim {

namespace {

constexpr double kDouble = 8;

std::string pass_name(Pass p) { return p == Pass::fwd ? "fwd" : "bwd"; }

/// Counts the events of one block as the GPU model records them (transfers, each `times` over, and steps).
class EventCounter final : public EventSink {
 public:
  std::uint64_t events = 0;
  void on_transfer(const Transfer& t) override { events += t.times; }
  void on_compute(const Compute&) override {}
  void on_step() override { ++events; }
};

/// What the fast replay holds for its running blocks: each one's recorded events (about 48 bytes
/// each: a tile, a direction, a flag) of the first block, for as many blocks as run at once; the
/// largest kernel's. The exact replay's records are ReplayWork::record_bytes.
double running_blocks_bytes(const Schedule& s, const ScheduleContext& ctx) {
  constexpr double kEventBytes = 48;
  double most = 0;
  for (const Kernel* k : s.kernels()) {
    const Occupancy occ = occupancy(k->launch(), ctx.hardware.sm);
    if (!occ.infeasible.empty()) continue;
    const Tiling g = k->grid_x();
    if (g.count() == 0) continue;
    EventCounter c;
    k->block(Span{0, 1, g.size(0), g.begin(0)}, Emitter(c, Walk::each));
    const double running = static_cast<double>(std::min<std::uint64_t>(occ.concurrent, g.count() * k->grid_heads()));
    most = std::max(most, running * static_cast<double>(c.events) * kEventBytes);
  }
  return most;
}

/// What one block asks of the L2, as the GPU model replays it: its events (transfers, each repeat
/// apart, and steps) and the sectors of its transfers' lines. A tile's rows narrower than a sector
/// still ask whole sectors, so on small tiles this is more than the HBM bytes ÷ the sector size.
class BlockWork final : public EventSink {
 public:
  BlockWork(const AddressMap& amap, const Kernel& k) : amap_(amap), k_(k) {}
  std::uint64_t events = 0;
  std::uint64_t sectors = 0;
  void on_transfer(const Transfer& t) override {
    events += t.times;
    lines_.clear();
    amap_.lines(t.tile, 0, k_.head_map(t.tile.tensor), lines_);
    std::uint64_t n = 0;
    for (const LineAccess& a : lines_) n += static_cast<std::uint64_t>(std::popcount(a.mask));
    sectors += n * t.times;
  }
  void on_compute(const Compute&) override {}
  void on_step() override { ++events; }

 private:
  const AddressMap& amap_;
  const Kernel& k_;
  std::vector<LineAccess> lines_;
};

BlockWork block_work(const AddressMap& amap, const Kernel& k, std::uint64_t x) {
  const Tiling g = k.grid_x();
  BlockWork w(amap, k);
  k.block(Span{x, 1, g.size(x), g.begin(x)}, Emitter(w, Walk::each));
  return w;
}

/// What the fast replay keeps of the blocks it records, the largest kernel's (one kernel at a time):
/// 32 bytes a transfer or step of every x (the mean block's: block_mean), up to
/// WorkCosts::fast_recorded_bytes. High: the records keep repeated steps once (BlockBytes' segments),
/// often a few items a block.
/// The mean block's work from the first and the last block's: under the causal mask alone they are
/// the shortest and the longest and the lengths between grow evenly, so their mean; where the work
/// levels off (a window) most blocks do the longer's, so the longer (high, as the estimate must be).
double block_mean(const Mask& mask, double first, double last) {
  return mask.levels_off() ? std::max(first, last) : (first + last) / 2;
}

double recorded_bytes(const Schedule& s, const Mask& mask, const WorkCosts& c) {
  constexpr double kItemBytes = 32;
  double most = 0;
  for (const Kernel* k : s.kernels()) {
    const Tiling g = k->grid_x();
    if (g.count() == 0) continue;
    EventCounter first, last;
    k->block(Span{0, 1, g.size(0), g.begin(0)}, Emitter(first, Walk::each));
    const std::uint64_t x = g.count() - 1;
    k->block(Span{x, 1, g.size(x), g.begin(x)}, Emitter(last, Walk::each));
    const double events = block_mean(mask, static_cast<double>(first.events), static_cast<double>(last.events)) *
                          static_cast<double>(g.count());
    most = std::max(most, std::min(c.fast_recorded_bytes, events * kItemBytes));
  }
  return most;
}

}  // namespace

ReplayWork replay_work(const Schedule& s, const ScheduleContext& ctx) {
  ReplayWork w;
  const L2Spec& l2 = ctx.hardware.l2;
  const AddressMap amap(ctx.problem, l2.line_bytes, l2.sector_bytes);
  const Mask mask(ctx.problem);
  for (const Kernel* k : s.kernels()) {
    const Tiling g = k->grid_x();
    if (g.count() == 0) continue;
    const BlockWork a = block_work(amap, *k, 0);
    const BlockWork b = block_work(amap, *k, g.count() - 1);
    const auto first = static_cast<double>(a.events), last = static_cast<double>(b.events);
    const double blocks = static_cast<double>(g.count()) * static_cast<double>(k->grid_heads());
    w.events += block_mean(mask, first, last) * blocks;
    w.sectors += block_mean(mask, static_cast<double>(a.sectors), static_cast<double>(b.sectors)) * blocks;
    // Each running block's record is a vector of events that grows by doubling: up to twice the
    // longest block's events, for as many blocks as run at once.
    const Occupancy occ = occupancy(k->launch(), ctx.hardware.sm);
    if (!occ.infeasible.empty()) continue;
    const double running = std::min(static_cast<double>(occ.concurrent), blocks);
    w.record_bytes = std::max(w.record_bytes, running * std::max(first, last) * 2 * sizeof(BlockRecorder::Event));
  }
  return w;
}

void WorkEstimate::then(const WorkEstimate& part) {
  seconds += part.seconds;
  if (part.seconds > slowest_seconds) {
    slowest_seconds = part.seconds;
    slowest = part.slowest;
  }
  if (part.bytes > bytes) {
    bytes = part.bytes;
    largest = part.largest;
  }
}

WorkEstimate estimate_prediction(const Schedule& s, const ScheduleContext& ctx, int replays, const WorkCosts& c,
                                 const GpuModelOptions& gpu) {
  const double ns = schedule_entry(s.name()).caps.streaming ? c.ns_per_sector_streaming : c.ns_per_sector_tiled;
  const ReplayWork w = replay_work(s, ctx);
  // One exact replay: its sectors, its blocks' events, and the running blocks' records.
  const double exact_sectors = w.sectors * ns * 1e-9;
  const double exact = exact_sectors + (w.events * c.ns_per_event + w.record_bytes * c.ns_per_record_byte) * 1e-9;
  // The L2's state (a tag, an age and a sector mask per line: 8 bytes) and the running blocks'
  // recorded events.
  const L2Spec& l2 = ctx.hardware.l2;
  const double lines = static_cast<double>(l2.capacity.value) / std::max<double>(1, l2.line_bytes);
  WorkEstimate e;
  const bool fast = gpu.l2 == L2Mode::fast && gpu.observer == nullptr && !ctx.problem.paged();  // as predict()
  if (fast) {
    const FirstPass f = first_pass(s, ctx, gpu);
    const double first = f.stride;
    // Every pass also handles each transfer of the heads it replays, whatever its stride: about
    // FastReplay::kLinesPerTransfer line requests' worth each, a line request priced as its sectors.
    const double sectors_per_line = static_cast<double>(l2.line_bytes) / std::max<double>(1, l2.sector_bytes);
    const double share = f.lines > 0 ? f.lines_replayed / f.lines : 1;  // of the heads, replayed
    const double transfers = f.transfers * share * FastReplay::kLinesPerTransfer * sectors_per_line * ns * 1e-9;
    // The fast replay records only the heads it replays and keeps their blocks' records compact
    // (recorded_bytes(), below): its sectors through the sampled sets are what it is priced by.
    const double replayed = exact_sectors * share;
    // Its passes: the fit's first, at the first stride, which the bound accepts unless the sample's
    // DRAM or fabric counts are too uneven (results/fast-bound-2026-12-07.md), and the warm run (the
    // exact replay's warm-up and warm run are one pass of the fast one), priced at that stride too
    // though it often follows the cold run. A refit at a finer stride is not foreseen: there the
    // estimate is low by that pass.
    const double passes = std::min(replays, 2);
    e.seconds = passes * (replayed / first + transfers);
    e.bytes = c.base_bytes +
              // the sampled L2's state at the finest stride a refit may reach from the first
              static_cast<std::uint64_t>(lines * 8 / std::max(1.0, first / FastReplay::kMaxStrideStep) + running_blocks_bytes(s, ctx) +
                                         recorded_bytes(s, Mask(ctx.problem), c));
  } else {
    e.seconds = exact * replays;
    e.bytes = c.base_bytes + static_cast<std::uint64_t>(lines * 8 + w.record_bytes);
  }
  e.slowest = e.largest = "predicting " + std::string(s.name()) + " " + pass_name(s.pass()) +
                          (fast ? " (fast L2 replay)" : " (exact L2 replay)");
  e.slowest_seconds = e.seconds;
  return e;
}

WorkEstimate estimate_execution(const Schedule& s, const Problem& p, const ExecuteOptions& o, const WorkCosts& c) {
  const auto n = static_cast<double>(p.n), nkv = static_cast<double>(p.n_kv), d = static_cast<double>(p.d);
  const double t = o.precision == Precision::fp32 ? 4 : 8;
  const bool fwd = s.pass() == Pass::fwd;
  const exec::Executor* ex = schedule_entry(s.name()).executor;
  const bool naive = ex != nullptr && ex->scores_in_hbm;  // S, P (dS, dP) in HBM; no S recomputed
  const double runs = o.bug == Bug::none ? 1 : 2;
  // Matrix products, 2·n·n_kv·d operations each: the forward has two (S = QKᵀ, O = PV); the
  // backward's reference five, its execution the forward's two, then five (flash: six, S again).
  const double nnd = 2 * n * nkv * d;
  const double ref_flops = (fwd ? 2 : 5) * nnd;
  const double run_flops = (fwd ? 2 : (naive ? 7 : 8)) * nnd;
  WorkEstimate e;
  const double ns = o.precision == Precision::fp32 ? c.ns_per_flop_fp32 : c.ns_per_flop_fp64;
  e.seconds = (ref_flops * c.ns_per_flop_reference + runs * run_flops * ns) * 1e-9;
  // Memory of one head: the inputs Q, K, V, dO in double, drawn and rounded to the working precision
  // (two copies); the reference's outputs and its block of 256 query rows; the schedule's HBM (the
  // inputs and outputs in the working precision, and naive's n × n_kv matrices with their temporaries).
  const double inputs = (2 * n + 2 * nkv) * d;
  double bytes = 2 * inputs * kDouble;
  bytes += (fwd ? n * d : (n + 2 * nkv) * d) * kDouble + (fwd ? 2 : 4) * 256 * nkv * kDouble;
  bytes += (inputs + (fwd ? n * d : 3 * n * d + 2 * nkv * d)) * t;
  if (naive) bytes += (fwd ? 4 : 8) * n * nkv * t;
  e.bytes = c.base_bytes + static_cast<std::uint64_t>(bytes);
  e.slowest = e.largest = "executing " + std::string(s.name()) + " " + pass_name(s.pass()) + " in " +
                          (o.precision == Precision::fp32 ? "fp32" : "fp64");
  e.slowest_seconds = e.seconds;
  return e;
}

WorkEstimate estimate_runs(const std::vector<std::string>& names, const std::vector<Pass>& passes,
                           const ScheduleContext& ctx, const RunOptions& opt, const WorkCosts& c) {
  WorkEstimate total;
  total.bytes = c.base_bytes;
  total.largest = "the program itself";
  if (!opt.predict && !opt.execute) return total;
  for (const std::string& name : names) {
    for (Pass pass : passes) {
      const std::unique_ptr<Schedule> s = make_schedule(name, pass, ctx);
      if (opt.predict) total.then(estimate_prediction(*s, ctx, 3, c, opt.gpu));  // cold, then warm-up and warm
      if (opt.execute) total.then(estimate_execution(*s, ctx.problem, *opt.execute, c));
    }
  }
  return total;
}

WorkEstimate estimate_tiles(const ScheduleContext& base, const TileSearchSpec& spec, const WorkCosts& c) {
  WorkEstimate total;
  total.bytes = c.base_bytes;
  total.largest = "the program itself";
  const std::vector<std::uint32_t> stages = searched_stages(spec);
  double seconds = 0;
  std::uint64_t peak = 0;
  // One cold replay per tile, fast or exact (a fast one's first stride usually meets the bound).
  const int replays = 1;
  for (std::uint64_t br : spec.sizes) {
    for (std::uint64_t bc : spec.sizes) {
      std::optional<WorkEstimate> one;  // the traffic depends on the tile only: counted once per tile
      std::set<std::vector<std::uint64_t>> replayed;  // blocks at once of each kernel, when replays are shared
      for (std::uint32_t w : spec.warps) {
        for (std::uint32_t st : stages) {
          // The same rejections as search_tiles, before its prediction: they cost nothing.
          ScheduleContext ctx = base;
          ctx.tiles = {br, bc};
          ctx.kernel = {w, st};
          std::unique_ptr<Schedule> s;
          try {
            s = make_schedule(spec.schedule, spec.pass, ctx);
          } catch (const InputError&) {
            continue;
          }
          if (!warp_split_refusal(*s, ctx).empty() || !launch_refusal(*s, ctx).empty()) continue;
          if (!one) one = estimate_prediction(*s, ctx, replays, c, spec.gpu);
          peak = std::max(peak, one->bytes - c.base_bytes);
          // Candidates of one tile that get as many blocks per SM share one replay (sim/tiles/search.h).
          std::vector<std::uint64_t> at_once;
          for (const Kernel* k : s->kernels()) at_once.push_back(occupancy(k->launch(), ctx.hardware.sm).concurrent);
          if (spec.share_replays && !replayed.insert(at_once).second) continue;
          seconds += one->seconds;
        }
      }
    }
  }
  const unsigned threads = spec.threads != 0 ? spec.threads : std::max(1u, std::thread::hardware_concurrency());
  total.seconds = seconds / threads;
  total.slowest_seconds = total.seconds;
  total.slowest = total.largest = "the tiles search (" + spec.schedule + " " + pass_name(spec.pass) + ")";
  total.bytes = c.base_bytes + peak * threads;
  return total;
}

}  // namespace iosim
