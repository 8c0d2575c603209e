#include "sim/gpu/fast_replay.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <numeric>
#include <queue>

#include "sim/core/error.h"
#include "sim/gpu/block_recorder.h"
#include "sim/memory/l2_cache.h"

namespace iosim {

namespace {

/// Line requests a schedule makes, all kernels and heads: tiles in lines, from a Walk::runs count.
class LineEstimate final : public EventSink {
 public:
  LineEstimate(DType element, std::uint32_t line_bytes) : element_(element), line_bytes_(line_bytes) {}
  void on_transfer(const Transfer& t) override {
    const std::uint64_t bytes = t.tile.elements().value * size_bytes(storage_type(t.tile.tensor, element_));
    lines += static_cast<double>(t.times) * static_cast<double>(ceil_div(bytes, line_bytes_) + 1);
  }
  void on_compute(const Compute&) override {}
  double lines = 0;

 private:
  DType element_;
  std::uint32_t line_bytes_;
};

L2Spec shrunk(L2Spec spec, std::uint32_t stride) {
  spec.capacity = Bytes(spec.capacity.value / stride);
  return spec;
}

std::uint64_t sets_per_partition(const L2Spec& spec) {
  L2Spec part = spec;
  part.capacity = Bytes(spec.capacity.value / spec.partitions);
  return L2Cache::sets_of(part);
}

/// The stride: the least power of two that brings the replayed line requests near the budget,
/// keeping at least kMinSets sets per partition.
std::uint32_t choose_stride(const Schedule& s, const ScheduleContext& ctx, const GpuModelOptions& opt) {
  const std::uint64_t sets = sets_per_partition(ctx.hardware.l2);
  if (opt.sample_stride != 0) return opt.sample_stride;
  LineEstimate est(ctx.problem.dtype, ctx.hardware.l2.line_bytes);
  s.emit(Emitter(est, Walk::runs));
  // Heads skipped: about four periods replayed when the heads are many and large (an estimate only:
  // it sets the stride, not the counts).
  const auto grid = static_cast<double>(ctx.problem.batch * ctx.problem.heads);
  const double replayed = opt.skip_heads ? std::min(1.0, 4.0 * static_cast<double>(ctx.problem.group()) / grid) : 1.0;
  const double want = est.lines * replayed / static_cast<double>(FastReplay::kLineBudget);
  std::uint32_t limit = 1;
  while (limit < want && limit < (1u << 20)) limit *= 2;
  limit = static_cast<std::uint32_t>(std::min<std::uint64_t>(limit, std::max<std::uint64_t>(1, sets / FastReplay::kMinSets)));
  return SetSample::largest_stride(sets, limit);
}

/// What the requests of one grid head caused (sectors, before any scaling).
struct HeadCounts {
  std::uint64_t read = 0, write = 0, red = 0;  ///< asked by the SMs, every line
  std::uint64_t dram_read = 0, dram_write = 0, fabric = 0;  ///< in the sampled sets
  std::uint64_t dirtied = 0;  ///< sectors made dirty, in the sampled sets
};

/// One block's work, the same for every head: what scheduling the launch needs.
struct Profile {
  bool seen = false;
  std::uint64_t steps = 0;
  double matmul = 0, vector = 0, special = 0, sram = 0;
};

class FastKernel {
 public:
  FastKernel(const Kernel& k, const ScheduleContext& ctx, const GpuModelOptions& opt, MemoryLevel& l2,
             PartitionedL2* partitioned, SampledDram& dram, const AddressMap& amap, const SetSample& sample)
      : k_(k), ctx_(ctx), opt_(opt), l2_(l2), partitioned_(partitioned), dram_(dram), amap_(amap), sample_(sample),
        xs_(k.grid_x().count()), heads_(k.grid_heads()), counts_(xs_ * heads_), profiles_(xs_) {
    const bool shared_kv = k.head_map(Tensor::K) == HeadMap::kv_of_query || k.head_map(Tensor::V) == HeadMap::kv_of_query;
    period_ = shared_kv ? ctx.problem.group() : 1;
    for (Tensor t : kAllTensors) maps_[index(t)] = k.head_map(t);
    if (period_ == 0 || heads_ % period_ != 0) period_ = heads_;
    spans_.assign(kTensorCount * AddressMap::kMaxSlices, {~std::uint64_t{0}, 0});
  }

  KernelPrediction run() {
    KernelPrediction out;
    out.name = std::string(k_.name());
    out.launch = k_.launch();
    out.occupancy = occupancy(out.launch, ctx_.hardware.sm);
    if (!out.occupancy.infeasible.empty()) {
      throw InputError("kernel " + out.name + " cannot run: " + out.occupancy.infeasible);
    }
    out.blocks = xs_ * heads_;
    out.waves = static_cast<double>(out.blocks) / static_cast<double>(out.occupancy.concurrent);
    concurrent_ = out.occupancy.concurrent;
    const std::uint64_t sms = ctx_.hardware.sm.count;
    std::vector<Slot> slots(std::min<std::uint64_t>(out.occupancy.concurrent, out.blocks));
    for (std::size_t i = 0; i < slots.size(); ++i) slots[i].partition = static_cast<std::uint32_t>(i % sms % 2);
    std::size_t running = 0;
    for (Slot& s : slots) running += start(s) ? 1u : 0u;
    while (running > 0) {
      for (std::size_t i = 0; i < slots.size(); ++i) {
        // The slots' events are far apart in memory, and each turn reads a few: fetch ahead.
        if (i + kAhead < slots.size()) {
          const Slot& a = slots[i + kAhead];
          if (a.busy && a.next < a.rec.events.size()) {
            const char* at = reinterpret_cast<const char*>(&a.rec.events[a.next]);
            for (int line = 0; line < 4; ++line) __builtin_prefetch(at + 64 * line);
          }
        }
        Slot& s = slots[i];
        if (!s.busy || step(s)) continue;
        s.busy = false;
        if (!start(s)) --running;
      }
    }
    drain();
    extrapolate(out);
    schedule(out);
    return out;
  }

 private:
  struct Slot {
    std::uint64_t head = 0;
    std::uint64_t block = 0;  ///< head × xs + x: where its counts go
    std::uint32_t partition = 0;
    BlockRecorder rec;
    std::size_t next = 0;
    bool busy = false;
  };
  struct Run {
    std::size_t end;
    std::uint32_t partition;
    Request request;
    std::uint64_t block;
  };
  static constexpr std::size_t kBatch = 4096;
  static constexpr std::size_t kAhead = 8;  ///< slots whose next events are fetched ahead
  /// A head this many waves long or more may be skipped whatever slots its successors then take
  /// (naive's P·V, 64 blocks a head in 264 slots, leaves 27% fewer dirty bytes when it is not).
  static constexpr std::uint64_t kWavesPerHead = 1;

  /// The next block of the (shortened) launch into `s`; false when none is left.
  bool start(Slot& s) {
    if (opt_.order == LaunchOrder::x_major && launched_ == period_ * xs_ && !planned_) plan();
    if (launched_ == jump_from_) launched_ = jump_to_;
    if (launched_ == xs_ * heads_) return false;
    const std::uint64_t b = launched_++;
    const bool x_major = opt_.order == LaunchOrder::x_major;
    const std::uint64_t x = x_major ? b % xs_ : b / heads_, head = x_major ? b / xs_ : b % heads_;
    s.head = head;
    s.block = head * xs_ + x;
    ++replayed_blocks_;
    s.rec.reset(ctx_.problem.dtype);
    const Tiling g = k_.grid_x();
    k_.block(Span{x, 1, g.size(x), g.begin(x)}, Emitter(s.rec, Walk::each));
    s.next = 0;
    s.busy = true;
    Profile& p = profiles_[x];
    if (!p.seen) {
      p.seen = true;
      p.matmul = s.rec.matmul;
      p.vector = s.rec.vector;
      p.special = s.rec.special;
      p.sram = s.rec.sram;
      for (const auto& e : s.rec.events) p.steps += e.step ? 1 : 0;
    }
    if (head < period_) footprint(s);
    return true;
  }

  /// Widens the byte spans that the first period's blocks touch, per tensor and copy.
  void footprint(const Slot& s) {
    for (const auto& e : s.rec.events) {
      if (e.step) continue;
      const TileBytes b = amap_.bytes(e.tile, s.head, maps_[index(e.tile.tensor)]);
      if (b.rows == 0 || b.width == 0) continue;
      auto& span = spans_[index(e.tile.tensor) * AddressMap::kMaxSlices + std::min<std::uint64_t>(e.tile.slice, AddressMap::kMaxSlices - 1)];
      span.first = std::min(span.first, b.start);
      span.second = std::max(span.second, b.start + (b.rows - 1) * b.stride + b.width);
    }
  }

  /// Decides, once the first period has started every block, which heads to replay.
  void plan() {
    planned_ = true;
    if (!opt_.skip_heads) return;
    std::uint64_t bytes = 0;
    for (const auto& [lo, hi] : spans_) bytes += hi > lo ? hi - lo : 0;
    if (bytes == 0) return;
    // Periods that touch twice the L2: a warm-up that forgets the kernel before, and a tail that
    // leaves the L2 as the whole launch would.
    // Heads that run at the same time (all of one wave) count as one: the warm-up ends, and the
    // steady periods begin, only after a wave has passed.
    const std::uint64_t together = ceil_div(std::min<std::uint64_t>(concurrent_, xs_ * heads_), xs_);
    const std::uint64_t enough = period_ * std::max(ceil_div(2 * ctx_.hardware.l2.capacity.value, bytes),
                                                    ceil_div(together, period_));
    const std::uint64_t lead = enough + period_ * std::max<std::uint64_t>(2, ceil_div(together, period_));
    if (lead + enough + period_ > heads_) return;
    // Whole periods are skipped (a jump into a head would make its later blocks miss on what its
    // earlier ones fetched). The blocks after the jump take other slots than they would have, unless
    // the blocks skipped are whole waves: that matters only when a head lasts a few waves, so then
    // only whole waves are skipped.
    std::uint64_t skip = (heads_ - lead - enough) / period_ * period_;
    if (xs_ < kWavesPerHead * concurrent_) {
      const std::uint64_t unit = std::lcm(period_ * xs_, concurrent_) / xs_;  // heads of whole waves
      skip = skip / unit * unit;
    }
    if (skip == 0) return;
    warm_up_ = enough;
    lead_ = lead;
    jump_from_ = lead * xs_;
    jump_to_ = (lead + skip) * xs_;
  }

  /// Runs `s` up to its next step marker; false once the block has no events left.
  bool step(Slot& s) {
    auto& ev = s.rec.events;
    HeadCounts& c = counts_[s.block];
    while (s.next < ev.size()) {
      const auto& e = ev[s.next++];
      if (e.step) return true;
      const Request r = request_of(e.dir);
      const std::uint64_t sectors = sample_.add(amap_.bytes(e.tile, s.head, maps_[index(e.tile.tensor)]), batch_);
      (r == Request::read ? c.read : r == Request::write ? c.write : c.red) += sectors;
      if (!runs_.empty() && runs_.back().partition == s.partition && runs_.back().request == r && runs_.back().block == s.block) {
        runs_.back().end = batch_.size();
      } else if (runs_.empty() || runs_.back().end < batch_.size()) {
        runs_.push_back({batch_.size(), s.partition, r, s.block});
      }
      if (batch_.size() >= kBatch) drain();
    }
    return false;
  }

  static Request request_of(Direction d) {
    switch (d) {
      case Direction::hbm_to_sram: return Request::read;
      case Direction::sram_to_hbm: return Request::write;
      case Direction::reduce: return Request::reduce;
    }
    return Request::read;
  }

  std::uint64_t fabric() const { return partitioned_ != nullptr ? partitioned_->fabric_read_sectors() : 0; }
  std::uint64_t dirtied() const {
    return partitioned_ != nullptr ? partitioned_->dirtied_sectors() : l2_.counters().dirtied_sectors;
  }

  /// Sends the batch to the sampled L2, run by run, charging what each run causes to its head.
  void drain() {
    // Hints kAhead requests ahead, as the exact replay does: a large sample misses the host's caches.
    constexpr std::size_t kHint = 8;
    const std::size_t n = batch_.size();
    std::size_t hinted_run = 0;
    const auto hint = [&](std::size_t at) {
      while (runs_[hinted_run].end <= at) ++hinted_run;
      const Run& r = runs_[hinted_run];
      if (partitioned_ != nullptr) {
        partitioned_->prefetch_for(r.partition, batch_[at].line, r.request);
      } else {
        l2_.prefetch(batch_[at].line, r.request);
      }
    };
    for (std::size_t at = 0; at < std::min(kHint, n); ++at) hint(at);
    std::size_t i = 0;
    for (const Run& r : runs_) {
      if (partitioned_ != nullptr) partitioned_->set_requester(r.partition);
      const std::uint64_t dr = dram_.counters().read_sectors, dw = dram_.counters().write_sectors, f = fabric();
      const std::uint64_t d = dirtied();
      for (; i < r.end; ++i) {
        if (i + kHint < n) hint(i + kHint);
        l2_.request(r.request, batch_[i].line, batch_[i].mask);
      }
      HeadCounts& c = counts_[r.block];
      c.dram_read += dram_.counters().read_sectors - dr;
      c.dram_write += dram_.counters().write_sectors - dw;
      c.fabric += fabric() - f;
      c.dirtied += dirtied() - d;
    }
    batch_.clear();
    runs_.clear();
  }

  /// The replayed blocks' counts, plus, for each block skipped, the mean of the blocks at its x in
  /// the steady heads; the sampled counts times the stride.
  void extrapolate(KernelPrediction& out) const {
    // Skipped blocks write back what they make dirty (in a steady state the L2 holds as much dirty at
    // the start of the skipped blocks as at their end): steadier, block by block, than the
    // write-backs, which fall on whichever block evicts them.
    using Sums = std::array<double, 6>;
    const auto add = [](Sums& a, const HeadCounts& c, bool skipped, double w) {
      const std::array<std::uint64_t, 6> v{c.read, c.write, c.red, c.dram_read, skipped ? c.dirtied : c.dram_write, c.fabric};
      for (std::size_t i = 0; i < v.size(); ++i) a[i] += w * static_cast<double>(v[i]);
    };
    Sums sum{};
    const std::uint64_t blocks = xs_ * heads_;
    const bool skipped = jump_to_ > jump_from_;
    for (std::uint64_t b = 0; b < blocks; ++b) {
      if (skipped && b >= jump_from_ && b < jump_to_) continue;
      const std::uint64_t at = opt_.order == LaunchOrder::x_major ? b : (b % heads_) * xs_ + b / heads_;
      add(sum, counts_[at], false, 1.0);
    }
    std::uint64_t heads_replayed = heads_;
    if (skipped) {
      // Skipped blocks at each x: whole heads, and the first x of the head the jump lands in.
      const std::uint64_t whole = (jump_to_ - jump_from_) / xs_, part = (jump_to_ - jump_from_) % xs_;
      const double steady_heads = static_cast<double>(lead_ - warm_up_);
      for (std::uint64_t x = 0; x < xs_; ++x) {
        const double w = static_cast<double>(whole + (x < part ? 1 : 0)) / steady_heads;
        for (std::uint64_t h = warm_up_; h < lead_; ++h) add(sum, counts_[h * xs_ + x], true, w);
      }
      heads_replayed = heads_ - whole;
    }
    const auto whole = [](double v) { return static_cast<std::uint64_t>(std::llround(v)); };
    const double stride = sample_.stride();
    const std::uint64_t sector = ctx_.hardware.l2.sector_bytes;
    out.l2_read_sectors = whole(sum[0]);
    out.l2_write_sectors = whole(sum[1]);
    out.l2_red_sectors = whole(sum[2]);
    out.dram_read = Bytes(whole(sum[3] * stride) * sector);
    out.dram_write = Bytes(whole(sum[4] * stride) * sector);
    out.l2_fabric_read_sectors = partitioned_ != nullptr ? whole(sum[5] * stride) : 0;
    out.heads_replayed = heads_replayed;
  }

  /// The whole launch scheduled from the blocks' step counts (as the replay interleaves them: a
  /// block of s steps holds its slot s + 1 turns; a freed slot takes the next block, lower slots
  /// first): FLOPs, shared-memory bytes, and each SM's share.
  void schedule(KernelPrediction& out) const {
    const std::uint64_t sms = ctx_.hardware.sm.count, blocks = xs_ * heads_;
    const std::size_t n = std::min<std::uint64_t>(out.occupancy.concurrent, blocks);
    const auto x_of = [&](std::uint64_t b) { return opt_.order == LaunchOrder::x_major ? b % xs_ : b / heads_; };
    std::vector<SmLoad> load(sms);
    std::vector<std::uint64_t> slot_x(n);
    using Turn = std::pair<std::uint64_t, std::size_t>;  // (the turn the block ends, its slot)
    std::priority_queue<Turn, std::vector<Turn>, std::greater<>> ends;
    std::uint64_t launched = 0;
    for (std::size_t i = 0; i < n; ++i) {
      slot_x[i] = x_of(launched++);
      ends.push({profiles_[slot_x[i]].steps, i});
    }
    while (!ends.empty()) {
      const auto [turn, i] = ends.top();
      ends.pop();
      const Profile& p = profiles_[slot_x[i]];
      SmLoad& l = load[i % sms];
      l.matmul_flops += p.matmul;
      l.vector_flops += p.vector;
      l.special_ops += p.special;
      l.sram_bytes += p.sram;
      out.matmul += Flops(static_cast<std::uint64_t>(p.matmul));
      out.vector += Flops(static_cast<std::uint64_t>(p.vector));
      out.special += Flops(static_cast<std::uint64_t>(p.special));
      out.sram += Bytes(static_cast<std::uint64_t>(p.sram));
      if (launched < blocks) {
        slot_x[i] = x_of(launched++);
        ends.push({turn + 1 + profiles_[slot_x[i]].steps, i});
      }
    }
    for (const SmLoad& l : load) {
      out.busiest.matmul_flops = std::max(out.busiest.matmul_flops, l.matmul_flops);
      out.busiest.vector_flops = std::max(out.busiest.vector_flops, l.vector_flops);
      out.busiest.special_ops = std::max(out.busiest.special_ops, l.special_ops);
      out.busiest.sram_bytes = std::max(out.busiest.sram_bytes, l.sram_bytes);
    }
  }

  const Kernel& k_;
  const ScheduleContext& ctx_;
  const GpuModelOptions& opt_;
  MemoryLevel& l2_;
  PartitionedL2* partitioned_;
  SampledDram& dram_;
  const AddressMap& amap_;
  const SetSample& sample_;
  std::uint64_t xs_, heads_, period_ = 1;
  std::uint64_t concurrent_ = 1;
  std::array<HeadMap, kTensorCount> maps_{};  ///< k_.head_map() of each tensor, looked up once
  std::vector<HeadCounts> counts_;
  std::vector<Profile> profiles_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> spans_;  ///< [first, end) bytes per tensor and copy
  // The shortened launch: blocks [0, jump_from_) then [jump_to_, all) in launch order; heads
  // [warm_up_, lead_) are the steady ones.
  std::uint64_t launched_ = 0, replayed_blocks_ = 0;
  bool planned_ = false;
  std::uint64_t warm_up_ = 0, lead_ = 0, jump_from_ = ~std::uint64_t{0}, jump_to_ = 0;
  std::vector<LineAccess> batch_;
  std::vector<Run> runs_;
};

}  // namespace

void SampledDram::add(std::uint64_t line, std::uint32_t mask, int which) {
  const std::uint64_t n = sector_count(mask);
  (which == 0 ? counters_.read_sectors : counters_.write_sectors) += n;
  per_set_[line % per_set_.size()][static_cast<std::size_t>(which)] += n;
}

void SampledDram::reset_counters() {
  counters_ = {};
  std::fill(per_set_.begin(), per_set_.end(), std::array<std::uint64_t, 2>{});
}

double sample_error(const std::vector<double>& per_set, std::uint32_t stride) {
  if (stride == 1 || per_set.size() < 2) return 0;
  const auto m = static_cast<double>(per_set.size());
  double sum = 0, squares = 0;
  for (double v : per_set) {
    sum += v;
    squares += v * v;
  }
  if (sum == 0) return 0;
  const double variance = std::max(0.0, (squares - sum * sum / m) / (m - 1));
  // Var(stride × Σ) for m sets drawn from m × stride without replacement, relative to the estimate.
  const double r = static_cast<double>(stride);
  return std::sqrt(r * r * m * variance * (1.0 - 1.0 / r)) / (r * sum);
}

double SampledDram::relative_error(std::uint32_t stride) const {
  double worst = 0;
  std::vector<double> v(per_set_.size());
  for (std::size_t which = 0; which < 2; ++which) {
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(per_set_[i][which]);
    worst = std::max(worst, sample_error(v, stride));
  }
  return worst;
}

FastReplay::FastReplay(const ScheduleContext& ctx, const GpuModelOptions& opt, std::uint32_t stride)
    : ctx_(ctx), opt_(opt),
      sample_(sets_per_partition(ctx.hardware.l2), stride, ctx.hardware.l2.line_bytes, ctx.hardware.l2.sector_bytes),
      dram_(ctx.hardware.l2.sector_bytes, sets_per_partition(ctx.hardware.l2) / stride),
      amap_(ctx.problem, ctx.hardware.l2.line_bytes, ctx.hardware.l2.sector_bytes) {
  const L2Spec spec = shrunk(ctx.hardware.l2, sample_.stride());
  // Sampled lines are already placed (set_sample.h): the small cache indexes them modulo.
  const SetIndex index = sample_.stride() == 1 ? SetIndex::hashed : SetIndex::modulo;
  std::unique_ptr<Replacement> policy = make_replacement(opt.replacement);
  if (!policy) throw InputError("unknown L2 replacement policy '" + opt.replacement + "' (known: lru, fifo, random)");
  if (spec.partitions == 2) {
    auto two = std::make_unique<PartitionedL2>(spec, [&] { return make_replacement(opt.replacement); }, dram_, index);
    partitioned_ = two.get();
    if (sample_.stride() > 1) partitioned_->set_home([this](std::uint64_t v) { return sample_.home(v); });
    l2_ = std::move(two);
  } else {
    l2_ = std::make_unique<L2Cache>(spec, std::move(policy), dram_, index);
  }
}

std::unique_ptr<FastReplay> FastReplay::fit(const Schedule& s, const ScheduleContext& ctx, const GpuModelOptions& opt,
                                            Prediction& cold) {
  std::uint32_t stride = choose_stride(s, ctx, opt);
  const std::vector<const Kernel*> kernels = s.kernels();
  for (;;) {
    auto r = std::make_unique<FastReplay>(ctx, opt, stride);
    cold = r->pass(kernels);
    const double e = r->standard_error();
    if (stride == 1 || e <= kMaxStandardError) return r;
    // The variance grows with the stride: the stride that would meet the bound, a power of two,
    // at most half this one.
    const double ratio = (kMaxStandardError / e) * (kMaxStandardError / e);
    std::uint32_t next = 1;
    while (next * 2 <= static_cast<double>(stride) * ratio && next * 2 < stride) next *= 2;
    stride = std::min(next, stride / 2);
  }
}

Prediction FastReplay::pass(const std::vector<const Kernel*>& kernels) {
  Prediction p;
  p.l2 = L2Mode::fast;
  p.sample_stride = sample_.stride();
  p.sector_bytes = ctx_.hardware.l2.sector_bytes;
  error_ = 0;
  for (const Kernel* k : kernels) {
    l2_->reset_counters();
    dram_.reset_counters();
    p.kernels.push_back(FastKernel(*k, ctx_, opt_, *l2_, partitioned_, dram_, amap_, sample_).run());
    error_ = std::max(error_, dram_.relative_error(sample_.stride()));
  }
  p.dirty_at_end = Bytes(l2_->dirty_bytes().value * sample_.stride());
  std::vector<double> dirty(sets_per_partition(ctx_.hardware.l2) / sample_.stride());
  for (std::size_t set = 0; set < dirty.size(); ++set) {
    dirty[set] = static_cast<double>(partitioned_ != nullptr ? partitioned_->dirty_sectors(set)
                                                               : static_cast<const L2Cache&>(*l2_).dirty_sectors(set));
  }
  error_ = std::max(error_, sample_error(dirty, sample_.stride()));
  return p;
}

}  // namespace iosim
