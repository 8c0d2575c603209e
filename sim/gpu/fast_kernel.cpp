#include "sim/gpu/fast_kernel.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <queue>
#include <stdexcept>

#include <unistd.h>

#include "sim/core/error.h"
#include "sim/gpu/block_bytes.h"
#include "sim/gpu/block_recorder.h"
#include "sim/gpu/launch_work.h"
#include "sim/gpu/request_batch.h"
#include "sim/gpu/skip_ledger.h"
#include "sim/gpu/tile_lines.h"

namespace iosim {

HeadCounts& HeadCounts::operator+=(const HeadCounts& o) {
  read += o.read, write += o.write, red += o.red;
  dram_read += o.dram_read, dram_write += o.dram_write, fabric += o.fabric, dirtied += o.dirtied;
  return *this;
}

HeadCounts& HeadCounts::operator-=(const HeadCounts& o) {
  read -= o.read, write -= o.write, red -= o.red;
  dram_read -= o.dram_read, dram_write -= o.dram_write, fabric -= o.fabric, dirtied -= o.dirtied;
  return *this;
}

namespace {

/// The host's per-core L2 in bytes (sysconf), or 1 MiB where it does not say.
std::uint64_t host_l2_bytes() {
  static const std::uint64_t bytes = [] {
    const long v = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return v > 0 ? static_cast<std::uint64_t>(v) : std::uint64_t{1} << 20;
  }();
  return bytes;
}

class FastKernel {
 public:
  FastKernel(const Kernel& k, const ScheduleContext& ctx, const GpuModelOptions& opt, MemoryLevel& l2,
             const MemoryLevel& dram, const AddressMap& amap, const SetSample& sample,
             FastKernelStats& stats, TraceUse& trace)
      : k_(k), ctx_(ctx), opt_(opt), l2_(l2), dram_(dram), amap_(amap), sample_(sample),
        stats_(stats), trace_(trace), batch_(l2), dram_counts_(dram.counters()), l2_counts_(l2.counters()), tiles_(sample), xs_(k.grid_x().count()), heads_(k.grid_heads()), counts_(xs_ * heads_),
        blocks_(trace.blocks != nullptr ? *trace.blocks : own_blocks_), seen_(xs_, false), weight_(trace.tally_weight) {
    if (blocks_.kernel != &k || blocks_.x.size() != xs_) blocks_ = {&k, std::vector<BlockBytes>(xs_), 0};
    const bool shared_kv = k.head_map(Tensor::K) == HeadMap::kv_of_query || k.head_map(Tensor::V) == HeadMap::kv_of_query;
    period_ = shared_kv ? ctx.problem.group() : 1;
    for (Tensor t : kAllTensors) maps_[index(t)] = k.head_map(t);
    if (period_ == 0 || heads_ % period_ != 0) period_ = heads_;
    spans_.assign(kTensorCount * AddressMap::kMaxSlices, {~std::uint64_t{0}, 0});
    head_spans_ = spans_;
    profiles_.resize(xs_);
    line_bytes_ = ctx.hardware.l2.line_bytes;
    sets_ = sample.sets();
    keeps_new_lines_ = opt.replacement == "lru" || opt.replacement == "fifo";
    cache_lines_ = ctx.hardware.l2.capacity.value / ctx.hardware.l2.line_bytes / sample.stride();
    // The sampled L2's state, about 8 bytes a line (sim/memory/l2_cache.h), is hinted ahead only
    // when it is larger than half the host's per-core L2 (the rest for the slots, lines and
    // counts): below, it stays in the host's caches and the hints hide nothing (n = 65536 causal
    // forward at stride 16, 245 KiB: 0.83× the time without them; results/performance-history.md).
    batch_.set_hints(cache_lines_ * 8 > host_l2_bytes() / 2);
    direct_ = opt.reuse_steps && cache_lines_ * 8 <= host_l2_bytes() / 2;
    skipping_ = opt.skip_rounds && opt.order == LaunchOrder::x_major;
    rewarm_sectors_ = 2 * cache_lines_ * (ctx.hardware.l2.line_bytes / ctx.hardware.l2.sector_bytes);
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
    if (trace_.record != nullptr) *trace_.record = {};
    slots_.resize(std::min<std::uint64_t>(out.occupancy.concurrent, out.blocks));
    own_.resize(slots_.size());
    std::vector<Slot>& slots = slots_;
    for (std::size_t i = 0; i < slots.size(); ++i) {  // slot i runs on SM i mod SMs
      slots[i].sm = static_cast<std::uint32_t>(i % sms);
      slots[i].partition = l2_.partition_of(slots[i].sm);
    }
    std::size_t& running = running_;
    for (Slot& s : slots) running += start(s) ? 1u : 0u;
    if (converged_ && launched_ == 0) {
      ++stats_.followed;
      trace_.converged = true;
      return trace_.follow->out;  // the same state at the kernel's start: the same run
    }
    if (skipping_) open_window();
    while (running > 0 && !converged_) {
      for (std::size_t i = 0; i < slots.size() && !converged_; ++i) {
        Slot& s = slots[i];
        if (!s.busy || (step(s) && (s.left == 0 || --s.left > 0))) continue;
        s.busy = false;
        if (!start(s)) --running;
      }
      if (skipping_ && !converged_) round_end();
    }
    drain();
    if (skipping_) at_change();
    trace_.skip_dram_error = ledger_.error()[0];
    trace_.skip_fabric_error = ledger_.error()[1];
    if (weight_ != nullptr) *weight_ = 1.0;
    extrapolate(out);
    schedule_launch(profiles_, heads_, opt_.order, ctx_.hardware.sm.count, out);
    if (trace_.record != nullptr) {
      trace_.record->counts = std::move(counts_);
      trace_.record->out = out;
      trace_.record->complete = digestible_;
    }
    return out;
  }

 private:
  /// Bytes of recorded blocks kept for later heads and runs (BlockBytes' items and segments); past
  /// it, blocks are recorded again for each head.
  static constexpr std::uint64_t kRecordedBytes = std::uint64_t{64} << 20;
  static constexpr std::size_t kInline = 8;  ///< transfers of a step a slot holds itself (flash2 bwd: 5)
  /// A head this many waves long or more may be skipped whatever slots its successors then take
  /// (naive's P·V, 64 blocks a head in 264 slots, leaves 27% fewer dirty bytes when it is not).
  static constexpr std::uint64_t kWavesPerHead = 1;

  struct Slot {
    std::uint64_t head = 0;
    std::uint64_t block = 0;  ///< head × xs + x: where its counts go
    std::uint32_t sm = 0;
    std::uint32_t partition = 0;  ///< of the L2, the SM's (MemoryLevel::partition_of)
    const BlockBytes* rec = nullptr;  ///< blocks_.x[x], or own_[slot]
    std::array<std::uint64_t, kTensorCount> offset{};  ///< AddressMap::head_offset of each tensor
    std::uint32_t segment = 0;        ///< the segment of `rec` held in `items`
    std::uint64_t repeat = 0;         ///< its next repeat
    // The segment's transfers moved by their tensors' offsets (when they are at most kInline; else
    // read from `rec`), so that a step reads the slot alone: the slots' blocks lie far apart.
    std::uint64_t repeats = 0;
    std::uint32_t count = 0;
    bool marker = false;
    bool done = false;  ///< every segment run
    std::array<BlockBytes::Item, kInline> items{};
    bool busy = false;
    std::uint64_t left = 0;  ///< turns the slot still runs the block, if not to its end (0: to its end)
  };

  /// The next block of the (shortened) launch into `s`; false when none is left, or when the run
  /// has taken the rest of the trace it follows.
  bool start(Slot& s) {
    if (converged_) return false;
    if (skipping_ && launch_changes(launched_)) at_change();
    if (opt_.order == LaunchOrder::x_major && launched_ == period_ * xs_ && !planned_) plan();
    const std::size_t i = static_cast<std::size_t>(&s - slots_.data());
    std::uint64_t b = 0, turns = 0;  // the block, and its first turns not replayed
    s.left = 0;
    if (launched_ < jump_from_ || after_.empty()) {  // the launch as it is
      if (launched_ == xs_ * heads_) return false;
      if (launched_ != checked_ && (launched_ == 0 || (planned_ && launched_ % xs_ == 0)) && checkpoint()) return false;
      b = launched_++;
    } else {  // after the jump: the slot's own blocks of the whole launch (plan())
      if (launched_ == jump_from_) enter_tail(i);
      if (after_[i].empty()) return false;
      const auto [next, skip, left] = after_[i].back();
      if (next >= jump_to_) {  // launched in launch order, as in the whole launch
        if (next != launched_) throw std::logic_error("fast replay: the tail's blocks start out of launch order");
        if (launched_ != checked_ && launched_ % xs_ == 0 && checkpoint()) return false;
        ++launched_;
      }
      after_[i].pop_back();
      if (next < jump_to_) ends_.push_back(next);
      b = next;
      turns = skip;
      s.left = left;
    }
    const bool x_major = opt_.order == LaunchOrder::x_major;
    const std::uint64_t x = x_major ? b % xs_ : b / heads_, head = x_major ? b / xs_ : b % heads_;
    s.head = head;
    s.block = head * xs_ + x;
    ++replayed_blocks_;
    s.rec = &recording(x, own_[i]);
    for (Tensor t : kAllTensors) s.offset[index(t)] = amap_.head_offset(t, head, maps_[index(t)]);
    hold(s, 0);
    for (; turns > 0 && !s.done; --turns) {  // as step() moves on, without the transfers
      if (++s.repeat == s.repeats) hold(s, s.segment + 1);
    }
    s.busy = true;
    if (phase_ == Phase::rewarm) rewarmed_.emplace_back(s.block, counts_[s.block]);
    // A block started in a window that will close (round_end()) is one of its heads' blocks; in a
    // rewarm, or the head skip's tail, no window closes (open_window() notes the running ones again).
    if (skipping_ && phase_ == Phase::count && !in_head_tail()) window_blocks_.emplace_back(s.block, counts_[s.block]);
    if (head < period_) footprint(s, spans_);
    if (head == 0) footprint(s, head_spans_);
    return true;
  }

  /// Puts segment `g` of the slot's block into the slot (or past the end).
  static void hold(Slot& s, std::uint32_t g) {
    s.segment = g;
    s.repeat = 0;
    s.done = g == s.rec->segments.size();
    if (s.done) return;
    const BlockBytes::Segment& seg = s.rec->segments[g];
    s.repeats = seg.repeats;
    s.marker = seg.marker;
    s.count = seg.end - seg.begin;
    if (s.count > kInline) return;
    for (std::uint32_t i = 0; i < s.count; ++i) {
      BlockBytes::Item e = s.rec->items[seg.begin + i];
      e.start += s.offset[e.tensor];
      s.items[i] = e;
    }
  }

  /// Block x's transfers: recorded once and kept while there is room, else recorded into `own`.
  const BlockBytes& recording(std::uint64_t x, BlockBytes& own) {
    BlockBytes& kept = blocks_.x[x];
    const bool room = blocks_.bytes < kRecordedBytes;
    if (!kept.recorded) {
      BlockBytes& r = room ? kept : own;
      r.record(k_, x, amap_, ctx_.problem.dtype, scratch_);
      if (room) blocks_.bytes += r.items.size() * sizeof(BlockBytes::Item) + r.segments.size() * sizeof(BlockBytes::Segment);
    }
    const BlockBytes& r = kept.recorded ? kept : own;
    if (!seen_[x]) {
      seen_[x] = true;
      BlockWork& p = profiles_[x];
      p.steps = r.steps;
      p.compute = r.compute;
      p.sram = r.sram;
    }
    return r;
  }

  /// Widens `spans` (per tensor and copy) to the bytes the slot's block touches.
  static void footprint(const Slot& s, std::vector<std::pair<std::uint64_t, std::uint64_t>>& spans) {
    for (const BlockBytes::Segment& g : s.rec->segments) {
      for (std::uint32_t i = g.begin; i < g.end; ++i) {
        const BlockBytes::Item& e = s.rec->items[i];
        if (e.rows == 0 || e.width == 0) continue;
        // Its first and last repeat (a segment's starts move one way).
        const TileBytes first = e.at(s.offset[e.tensor], 0), last = e.at(s.offset[e.tensor], g.repeats - 1);
        auto& span = spans[std::size_t{e.tensor} * AddressMap::kMaxSlices + e.slice];
        span.first = std::min({span.first, first.start, last.start});
        span.second = std::max({span.second, first.start + (first.rows - 1) * first.stride + first.width,
                                last.start + (last.rows - 1) * last.stride + last.width});
      }
    }
  }

  /// At a checkpoint (KernelTrace): digests the state, records it, or compares it with the trace
  /// followed; true when they are equal and the rest of the trace's counts have been taken.
  bool checkpoint() {
    checked_ = launched_;
    if ((trace_.record == nullptr && trace_.follow == nullptr) || !digestible_) return false;
    // A digest reads every sampled set: a run records a checkpoint only once it has sent the L2 as
    // many lines as it holds since the last (so digests cost about what the replay does at most),
    // and a following run digests only where the run it follows recorded one.
    const auto* theirs = trace_.follow != nullptr ? &trace_.follow->checkpoints : nullptr;
    if (theirs != nullptr) {
      while (followed_ < theirs->size() && (*theirs)[followed_].launched < launched_) ++followed_;
      if (followed_ == theirs->size() || (*theirs)[followed_].launched != launched_) return false;
    } else if (stats_.lines - stats_.digested_at < cache_lines_) {
      return false;
    }
    stats_.digested_at = stats_.lines;
    drain();
    Digest d;
    if (!l2_.digest_contents(d)) {
      digestible_ = false;
      return false;
    }
    for (std::uint32_t p = 0; p < pure_.size(); ++p) {
      // What step() will find: whether the last pure step of p is still valid, and what it holds.
      const Pure& last = pure_[p];
      const bool valid = last.changes == (last.loads_only ? l2_.content_changes(p) : l2_.content_changes());
      d.add(valid ? 1 : 0);
      if (!valid) continue;
      d.add(last.loads_only ? 1 : 0);
      d.add(last.key.size());
      for (const auto& [b, r] : last.key) {
        for (std::uint64_t w : {b.start, b.width, b.stride, b.rows, static_cast<std::uint64_t>(r)}) d.add(w);
      }
      for (std::uint64_t w : last.sectors) d.add(w);
    }
    KernelTrace::Checkpoint here{launched_, d.value(), {}};
    for (const Slot& s : slots_) {
      if (s.busy) here.running.emplace_back(s.block, counts_[s.block]);
    }
    if (trace_.record != nullptr) trace_.record->checkpoints.push_back(here);
    if (theirs == nullptr || (*theirs)[followed_].state != here.state) return false;
    take_rest((*theirs)[followed_]);
    return true;
  }

  /// The rest of the followed run from checkpoint `c`, whose state is this run's now: the blocks
  /// not launched yet count what they counted there, the blocks in flight add what they added
  /// there after `c`, the blocks finished keep their own counts.
  void take_rest(const KernelTrace::Checkpoint& c) {
    converged_ = true;
    if (launched_ == 0) return;  // run() returns the followed result as it is
    const std::vector<HeadCounts>& final_counts = trace_.follow->counts;
    std::size_t busy = 0;
    for (const Slot& s : slots_) busy += s.busy ? 1 : 0;
    if (busy != c.running.size()) throw std::logic_error("fast replay: a followed run has other blocks in flight");
    for (const auto& [block, then] : c.running) {
      counts_[block] += final_counts[block];
      counts_[block] -= then;
    }
    // x-major (the only order with checkpoints past the start): launch order is block order.
    for (std::uint64_t b = launched_; b < counts_.size(); ++b) counts_[b] = final_counts[b];
    ++stats_.followed;
    trace_.converged = true;
  }

  /// Decides, once the first period has started every block, which heads to replay.
  void plan() {
    planned_ = true;
    if (!opt_.skip_heads) return;
    const auto total = [](const std::vector<std::pair<std::uint64_t, std::uint64_t>>& spans) {
      std::uint64_t bytes = 0;
      for (const auto& [lo, hi] : spans) bytes += hi > lo ? hi - lo : 0;
      return bytes;
    };
    const std::uint64_t bytes = total(spans_), head_bytes = total(head_spans_);
    if (bytes == 0 || head_bytes == 0) return;
    const std::uint64_t twice_l2 = 2 * ctx_.hardware.l2.capacity.value;
    // Periods that touch twice the L2: a warm-up that forgets the kernel before.
    // Heads that run at the same time (all of one wave) count as one: the warm-up ends, and the
    // steady periods begin, only after a wave has passed.
    const std::uint64_t together = ceil_div(std::min<std::uint64_t>(concurrent_, xs_ * heads_), xs_);
    const std::uint64_t enough = period_ * std::max(ceil_div(twice_l2, bytes), ceil_div(together, period_));
    // Two steady periods, whose mean per position in the group stands for the heads skipped (one
    // period alone is not enough even where a group touches twice the L2: at 4 SMs and a 256 KiB L2,
    // flash2 causal n = 4096, d = 64, 32 heads on 8, the fabric reads were 1.5% off).
    const std::uint64_t lead = enough + period_ * std::max<std::uint64_t>(2, ceil_div(together, period_));
    // The tail leaves the L2 as the whole launch would: it touches twice the L2 too. Where each head
    // is a wave long or more and shares K/V with its group, the tail is the last heads that do so,
    // not whole periods: those heads, and their group's heads skipped, count the steady heads' mean
    // at the same position in the group (extrapolate()), since replayed after the jump they find
    // their group's K/V cold. Where heads are shorter than a wave, whole periods (below).
    const bool whole_waves = xs_ < kWavesPerHead * concurrent_;
    const std::uint64_t tail = period_ > 1 && !whole_waves
                                   ? std::min(enough, std::max(ceil_div(twice_l2, head_bytes), together))
                                   : enough;
    if (lead + tail + period_ > heads_) return;
    // Whole periods are skipped, or up to the tail's heads (a jump into a head would make its later
    // blocks miss on what its earlier ones fetched). Where a head is shorter than a few waves, only
    // whole waves are skipped, so that the blocks after the jump take the slots they would have.
    std::uint64_t skip = heads_ - lead - tail;
    if (tail == enough) skip = skip / period_ * period_;
    if (whole_waves) {
      const std::uint64_t unit = std::lcm(period_ * xs_, concurrent_) / xs_;  // heads of whole waves
      skip = skip / unit * unit;
    }
    if (skip == 0) return;
    warm_up_ = enough;
    lead_ = lead;
    jump_from_ = lead * xs_;
    jump_to_ = (lead + skip) * xs_;
    counted_from_ = ceil_div(lead + skip, period_) * period_;
    carry_phase();
    if (jump_to_ <= jump_from_) return;
    // What each steady head stands for, per position in the group (extrapolate()): the heads of whole
    // periods skipped (`dirtied_`, counted by what they make dirty), and those of the group the jump
    // lands in, skipped or replayed after it (`written_`, counted by what they write back).
    const std::uint64_t group_start = (lead + skip) / period_ * period_;
    const bool landed_in_group = lead + skip < counted_from_;
    dirtied_.assign(period_, 0.0);
    written_.assign(period_, 0.0);
    for (std::uint64_t h = lead; h < counted_from_; ++h) ((landed_in_group && h >= group_start) ? written_ : dirtied_)[h % period_] += 1;
    const auto periods = static_cast<double>((lead_ - warm_up_) / period_);
    for (std::uint64_t p = 0; p < period_; ++p) dirtied_[p] /= periods, written_[p] /= periods;
  }

  /// The weight a block's sampled DRAM and fabric counts take in the estimate (extrapolate()), for the
  /// sample's error: a steady head's counts stand for itself and the heads it is copied to; those of a
  /// head replayed after the jump but counted from the steady ones, for none; the rest, for themselves.
  double weight_of(std::uint64_t block) const {
    if (jump_to_ <= jump_from_) return 1.0;
    const std::uint64_t h = block / xs_;
    if (h >= warm_up_ && h < lead_) return 1.0 + dirtied_[h % period_] + written_[h % period_];
    if (block >= jump_to_ && h < counted_from_) return 0.0;
    return 1.0;
  }

  /// What each slot runs after the jump, so that the tail runs as in the whole launch: the blocks
  /// skipped are not whole waves, and with blocks of unequal steps (causal) which slots free first,
  /// and so which blocks run together up to the end (what is left dirty), depends on where the jump
  /// lands. The launch's turns do not depend on the L2 (walk_launch()): the replay is the whole
  /// launch with the turns [cut, resume) taken out, `cut` the first turn after every block before
  /// the jump has ended, `resume` the first turn of a block of the tail. Before `cut` and from
  /// `resume` on, every slot runs what it runs in the whole launch; the skipped blocks that run
  /// across either are run in part (their counts are not taken: the skipped blocks count the steady
  /// heads' mean). Where no such turns exist (the blocks skipped take less than the spread of the
  /// slots' ends), nothing is skipped.
  void carry_phase() {
    // Two walks of the launch (each far cheaper than the replay) rather than every block's turns kept.
    constexpr std::uint64_t none = ~std::uint64_t{0};
    std::uint64_t cut = 0, resume = none;
    lead_last_.assign(slots_.size(), none);
    walk_launch(profiles_, heads_, opt_.order, slots_.size(), [&](const BlockTurns& t) {
      if (t.block < jump_from_) {
        cut = std::max(cut, t.end + 1);
        lead_last_[t.slot] = t.block;
      } else if (t.block == jump_from_) {
        first_after_ = t.slot;
      }
      if (t.block >= jump_to_) resume = std::min(resume, t.start);
    });
    if (resume < cut) {
      jump_from_ = ~std::uint64_t{0}, jump_to_ = 0;
      return;
    }
    after_.assign(slots_.size(), {});
    walk_launch(profiles_, heads_, opt_.order, slots_.size(), [&](const BlockTurns& t) {  // a slot's blocks in order
      if (t.block < jump_from_) return;
      if (t.start < cut) after_[t.slot].push_back({t.block, 0, t.end < cut ? 0 : cut - t.start});
      if (t.end >= resume) after_[t.slot].push_back({t.block, t.start < resume ? resume - t.start : 0, 0});
    });
    for (std::vector<Part>& parts : after_) std::reverse(parts.begin(), parts.end());  // popped from the back
  }

  /// Checks, as the replay reaches the jump, that its slots run what the whole launch's turns say
  /// (walk_launch() is the replay's launch, or the tail would not start at its phase).
  void enter_tail(std::size_t first) {
    if (first != first_after_) throw std::logic_error("fast replay: the launch's turns are not the replay's");
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      const Slot& s = slots_[i];
      if (s.busy && s.block != lead_last_[i]) throw std::logic_error("fast replay: the launch's turns are not the replay's");
    }
    launched_ = jump_to_;
  }

  /// Runs `s` up to its next step marker; false once the block has no events left.
  ///
  /// A step is counted without being replayed when it asks for the same tiles, in the same order,
  /// from the same partition, as a step whose lines were all left in the L2 with the sectors it
  /// asks for, and the L2 has changed no line since (LevelCounters::content_changes()): the step
  /// would only hit, and it asks the same sectors. Which lines count as changed: for a step that
  /// only loads, those of its own partition (its loads look nowhere else when they hit); for one
  /// that stores or reduces, those of both. A step leaves its lines in place when it only hit
  /// (changed nothing), or, under LRU and FIFO, when it only loads contiguous tiles too few to
  /// fill a set (then what it filled is the newest in each set, which its own later fills do not
  /// evict; random replacement may evict them). What reuse leaves out is the ages the step would
  /// refresh under LRU (FIFO and random do not age hits: there reuse is exact), which decide later
  /// victims only among lines touched since the step reused.
  bool step(Slot& s) {
    key_.clear();
    if (s.done) return false;
    const bool more = s.marker;
    const std::uint64_t repeat = s.repeat;
    bool loads_only = true, contiguous = true;
    const auto add = [&](const BlockBytes::Item& e, std::uint64_t offset) {
      const TileBytes b = e.at(offset, repeat);
      key_.emplace_back(b, e.request);
      loads_only = loads_only && e.request == Request::read;
      contiguous = contiguous && b.contiguous();
    };
    if (s.count <= kInline) {
      for (std::uint32_t i = 0; i < s.count; ++i) add(s.items[i], 0);
    } else {
      const BlockBytes::Segment& g = s.rec->segments[s.segment];
      for (std::uint32_t i = g.begin; i < g.end; ++i) add(s.rec->items[i], s.offset[s.rec->items[i].tensor]);
    }
    if (++s.repeat == s.repeats) hold(s, s.segment + 1);
    if (key_.empty()) return more;
    ++stats_.steps;
    HeadCounts& c = counts_[s.block];
    Pure& last = pure_[s.partition];
    const auto changes = [&] { return loads_only ? l2_.content_changes(s.partition) : l2_.content_changes(); };
    if (opt_.reuse_steps && last.loads_only == loads_only && last.key == key_ && last.changes == changes()) {
      c.read += last.sectors[0];
      c.write += last.sectors[1];
      c.red += last.sectors[2];
      for (std::size_t i = 0; i < 3; ++i) asked_[i] += last.sectors[i];
      ++stats_.steps_reused;
      return more;
    }
    std::array<std::uint64_t, 3> sectors{};
    if (direct_) {
      send(s, c, sectors, loads_only, contiguous);
      return more;
    }
    for (const auto& [bytes, r] : key_) {
      const std::size_t before = batch_.lines().size();
      sectors[static_cast<std::size_t>(r)] += tiles_.add(bytes, batch_.lines());
      stats_.lines += batch_.lines().size() - before;
      batch_.mark(r, s.sm, s.block);
    }
    c.read += sectors[0];
    c.write += sectors[1];
    c.red += sectors[2];
    for (std::size_t i = 0; i < 3; ++i) asked_[i] += sectors[i];
    if (!opt_.reuse_steps) {
      if (batch_.full()) drain();
      return more;
    }
    const std::uint64_t before = l2_.content_changes();
    drain();
    settle(s.partition, sectors, loads_only, contiguous, before);
    return more;
  }

  /// step() of a step that is replayed, where the batch is drained after every step and hints
  /// nothing (direct_): its tiles' lines go to the L2 as they are found, in the batch's order, and
  /// what they cause is charged to the block, as drain() charges its runs (all the step's).
  void send(const Slot& s, HeadCounts& c, std::array<std::uint64_t, 3>& sectors, bool loads_only, bool contiguous) {
    const Mark m = mark(s.block);
    const std::uint64_t before = l2_.content_changes();
    for (const auto& [bytes, r] : key_) {
      std::uint64_t n = 0;
      const std::span<const LineAccess> lines = tiles_.lines(bytes, n);
      sectors[static_cast<std::size_t>(r)] += n;
      stats_.lines += lines.size();
      for (const LineAccess& a : lines) l2_.request(r, a.line, a.mask, s.sm);
    }
    c.read += sectors[0];
    c.write += sectors[1];
    c.red += sectors[2];
    for (std::size_t i = 0; i < 3; ++i) asked_[i] += sectors[i];
    charge(c, m);
    settle(s.partition, sectors, loads_only, contiguous, before);
  }

  /// After a replayed step: keeps it as the partition's last pure step when it left its lines in
  /// place (step()), given content_changes() before its lines were sent.
  void settle(std::uint32_t partition, const std::array<std::uint64_t, 3>& sectors, bool loads_only, bool contiguous,
              std::uint64_t before) {
    Pure& last = pure_[partition];
    const bool stays = l2_.content_changes() == before ||
                       (keeps_new_lines_ && loads_only && contiguous && per_set() <= ctx_.hardware.l2.ways);
    if (stays) {
      last.key.swap(key_);
      last.sectors = sectors;
      last.loads_only = loads_only;
      last.changes = loads_only ? l2_.content_changes(partition) : l2_.content_changes();
    } else {
      last.changes = ~std::uint64_t{0};
    }
  }

  /// The most lines of the current step (key_) in one set, bounded per tile: a contiguous range
  /// meets each set at most once per span of `sets` lines it touches.
  std::uint64_t per_set() const {
    std::uint64_t n = 0;
    for (const auto& [bytes, r] : key_) n += (bytes.rows * bytes.width / line_bytes_) / sets_ + 2;
    return n;
  }

  /// The DRAM, fabric and dirtied sectors counted so far, before a block's requests reach the L2.
  struct Mark {
    std::uint64_t dram_read, dram_write, fabric, dirtied;
  };
  /// A Mark before `block`'s requests, whose weight the per-set tallies then take.
  Mark mark(std::uint64_t block) {
    if (weight_ != nullptr) *weight_ = weight_of(block);
    return {dram_counts_.read_sectors, dram_counts_.write_sectors, l2_counts_.fabric_read_sectors,
            l2_counts_.dirtied_sectors};
  }
  /// Charges `c` with what the requests since `m` caused.
  void charge(HeadCounts& c, const Mark& m) const {
    c.dram_read += dram_counts_.read_sectors - m.dram_read;
    c.dram_write += dram_counts_.write_sectors - m.dram_write;
    c.fabric += l2_counts_.fabric_read_sectors - m.fabric;
    c.dirtied += l2_counts_.dirtied_sectors - m.dirtied;
  }

  /// Sends the batch to the sampled L2, run by run, charging what each run causes to its block.
  void drain() {
    Mark m{};
    batch_.drain([&](std::uint64_t block) { m = mark(block); },
                 [&](std::uint64_t block) { charge(counts_[block], m); });
  }

  // Rounds skipped (GpuModelOptions::skip_rounds). A round is one step of every running block (one
  // pass of run()'s slot loop). The replay counts windows of kWindow rounds. A reference window is
  // kept, and the span of rounds over which the windows since have repeated its DRAM and fabric read
  // rates (sampled sectors per read sector asked) within kTolerance; a window that does not repeat
  // them becomes the reference. Where the span holds two windows or more, the replay jumps R rounds,
  // R at most the span (and kMaxSkip): every running block's step index moves R steps on, the sectors
  // they ask are summed in closed form from the tiles (a segment's tiles move by a fixed distance a
  // step, so a step's sectors repeat where the distance is whole sectors), and blocks that end inside
  // the jump are followed by the next blocks in launch order, from their step counts (the launch does
  // not depend on the L2). The L2 sees none of it. Then a rewarm: rounds replayed, their reads
  // counted at the rates, until twice the L2's capacity has been read from DRAM or for as many rounds
  // as that takes at the window's rate, whichever ends first; then windows again. The skipped and
  // rewarm rounds' reads are counted at the mean of the windows before and after them (a trapezoid,
  // which follows a drifting rate; the window before alone, where none follows). Each block's sectors
  // are counted at its own head's rates in those windows (its blocks' counts' growth), not the whole
  // window's: the heads running together miss at different rates (one ending reads K/V the L2 holds
  // by now, the next reads its own for the first time), and the head skip (plan()) counts a steady
  // head's blocks for many heads, so what a skip charges to one head rather than another is
  // multiplied there (h200, 32 heads, n = 131072, causal forward: the cold head 0's misses counted
  // at the window's mean moved 4% onto head 1, which stands for 14 heads: +2.1% DRAM reads).
  // Step control, as in quadrature: a skip extrapolates the rates no further than they have been
  // seen to hold; where the window after it repeats the reference, the skip and rewarm join the span
  // (so the next skip may be about twice as long), else the span begins again; half the two windows'
  // difference goes to the error. Two windows in a row that agree by chance on a steep rate (a long
  // causal head's rate falls and rises by tenfold over a few hundred rounds, where the K/V its blocks
  // read comes to fit the L2 and leaves it) make a span of two windows, too short for a skip through
  // the trough. A rewarm ended by DRAM reads alone would run on for as long as the rate stays low,
  // all of it counted at the rates at its ends, which miss the trough; ended by rounds, a rewarm
  // leaves the L2 less rebuilt only where the rate fell, where a stale L2 misses little.
  // Stores: where the window reduced nothing, a skipped store goes straight to DRAM (written back
  // once: exact while no sector is stored twice, true of a forward pass) and the rewarm's are
  // counted as they happen; where it reduced, the skip's and the rewarm's writes go at the rates.
  // Skips and rewarms end before the launch changes (a block of a new head, the kernel's last
  // block, the jump of the head skip, a slot left idle in the kernel's tail), so that a change meets
  // an L2 rebuilt by a replay, and the L2 the kernel leaves is a replay's; a skip is
  // at least as long as its rewarm (estimated from the window's DRAM reads a round). The rates, the
  // sectors owed and the error are kept by SkipLedger (skip_ledger.h).
  static constexpr std::uint64_t kWindow = 8;
  static constexpr std::uint64_t kMaxSkip = 1024;
  static constexpr double kTolerance = 0.01;

  enum class Phase { count, rewarm };
  using Rates = SkipLedger::Rates;
  struct HeadRates {
    std::uint64_t head = 0;
    Rates rates;
  };

  /// The counters a window compares: sectors asked (read, write, reduce), sampled DRAM reads and
  /// writes, fabric reads, sectors dirtied.
  std::array<std::uint64_t, 7> now() const {
    return {asked_[0], asked_[1], asked_[2], dram_counts_.read_sectors, dram_counts_.write_sectors,
            l2_counts_.fabric_read_sectors, l2_counts_.dirtied_sectors};
  }
  void open_window() {
    window_ = now();
    window_rounds_ = 0;
    window_blocks_.clear();
    for (const Slot& s : slots_) {
      if (s.busy) window_blocks_.emplace_back(s.block, counts_[s.block]);
    }
  }

  /// Each head's rates in the window now ending, from its blocks' counts' growth (start() and
  /// open_window() note them); a head whose blocks asked no reads (or no writes) in it takes the
  /// whole window's (`whole`), as does, for writes, a window that reduced (`straight` is the window's).
  std::vector<HeadRates> head_rates(const Rates& whole) const {
    std::vector<std::pair<std::uint64_t, std::array<double, 7>>> sums;
    for (const auto& [b, then] : window_blocks_) {
      const std::uint64_t h = b / xs_;
      auto it = std::find_if(sums.begin(), sums.end(), [h](const auto& e) { return e.first == h; });
      if (it == sums.end()) it = sums.insert(sums.end(), {h, {}});
      const HeadCounts& c = counts_[b];
      const std::array<std::uint64_t, 7> d{c.read - then.read, c.write - then.write, c.red - then.red, c.dram_read - then.dram_read,
                                           c.dram_write - then.dram_write, c.fabric - then.fabric, c.dirtied - then.dirtied};
      for (std::size_t i = 0; i < d.size(); ++i) it->second[i] += static_cast<double>(d[i]);
    }
    std::vector<HeadRates> out;
    for (const auto& [h, d] : sums) {
      Rates r = SkipLedger::rates(d);
      r.straight = whole.straight;
      if (d[0] + d[2] <= 0) r.read = whole.read, r.fabric = whole.fabric;
      if (d[1] + d[2] <= 0 || !whole.straight) r.write = whole.write, r.dirtied = whole.dirtied;
      out.push_back({h, r});
    }
    return out;
  }

  /// Head `h`'s rates in `heads`, or `fallback` where it has none.
  static const Rates* rates_of(const std::vector<HeadRates>& heads, std::uint64_t h, const Rates* fallback) {
    for (const HeadRates& e : heads) {
      if (e.head == h) return &e.rates;
    }
    return fallback;
  }

  /// Whether launching block `b` (launch order) changes the launch: a new head's block, the last
  /// block, a block of the head skip's tail, and past the last block a slot left idle (the kernel's
  /// tail: its last rounds leave the L2 the next kernel or run finds, so they are replayed).
  bool launch_changes(std::uint64_t b) const {
    const std::uint64_t blocks = xs_ * heads_;
    return b >= blocks || b % xs_ == 0 || b + 1 == blocks || b >= jump_from_;
  }

  /// At a change of the launch: the rewarm ended, what is owed counted at the rates before, the
  /// windows begun again.
  void at_change() {
    // In the head skip's tail no window closes (round_end()) and every launch is a change: once what
    // was owed is counted, there is nothing to begin again (and opening a window costs a pass over
    // the slots per block launched).
    if (in_head_tail() && phase_ == Phase::count && !ledger_.owes()) return;
    if (phase_ == Phase::rewarm) end_rewarm();
    settle(nullptr);
    phase_ = Phase::count;
    have_ref_ = false;
    open_window();
  }

  /// Whether the launch is in the head skip's tail, which runs as it is: no window, no skip.
  bool in_head_tail() const { return !after_.empty() && launched_ >= jump_from_; }

  void round_end() {
    if (in_head_tail()) return;  // the head skip's tail: run as it is
    if (phase_ == Phase::rewarm) {
      if (++rewarm_rounds_ < rewarm_limit_ && dram_counts_.read_sectors - rewarm_from_ < rewarm_sectors_) return;
      interval_ += rewarm_rounds_;
      end_rewarm();
      phase_ = Phase::count;
      open_window();
      return;
    }
    if (++window_rounds_ < kWindow) return;
    if (!opt_.reuse_steps) drain();
    const std::array<std::uint64_t, 7> n = now();
    std::array<double, 7> d{};
    for (std::size_t i = 0; i < d.size(); ++i) d[i] = static_cast<double>(n[i] - window_[i]);
    const Rates r = SkipLedger::rates(d);
    std::vector<HeadRates> heads = head_rates(r);
    const double per_round = d[3] / static_cast<double>(kWindow);
    if (ledger_.owes()) settle(&heads);
    open_window();  // after settle(), which adds to the counts the window's heads' rates come from
    // The span over which the windows have repeated the reference window's rates (a skip and
    // rewarm between two of them included): a skip counts at most that many rounds at the rates.
    if (have_ref_ && SkipLedger::steady(r, ref_, kTolerance)) {
      span_ += interval_ + kWindow;
    } else {
      ref_ = r, have_ref_ = true, span_ = kWindow;
    }
    interval_ = 0;
    if (span_ < 2 * kWindow) return;
    if (per_round <= 0) return;  // the L2 holds what the rounds read: no rewarm could end
    // Stores and reductions skipped are counted straight to DRAM or at the window's rates, which is
    // exact only where no sector is stored twice and the L2 holds nothing dirty that a later kernel
    // reads: skip only where they are few beside the reads (a forward's O, once per block; not
    // flash1's O, stored each step, a backward's dQ reductions, or a GEMM's tiles, stored each few
    // steps: those were 4-370% off with them skipped).
    if (d[1] + d[2] > kTolerance * (d[0] + d[2])) return;
    const auto rewarm = static_cast<std::uint64_t>(std::ceil(static_cast<double>(rewarm_sectors_) / per_round));
    std::uint64_t rounds = std::min(span_, kMaxSkip);
    const std::uint64_t room = rounds_to_change(rounds + rewarm);
    rounds = room > rewarm ? std::min(rounds, room - rewarm) : 0;
    if (rounds < std::max(kWindow, rewarm)) return;
    jump(rounds);
    interval_ = rounds;
    before_ = r;
    before_heads_ = std::move(heads);
    phase_ = Phase::rewarm;
    rewarm_from_ = dram_counts_.read_sectors;
    rewarm_rounds_ = 0, rewarm_limit_ = rewarm;
    for (const Slot& s : slots_) {
      if (s.busy) rewarmed_.emplace_back(s.block, counts_[s.block]);
    }
  }

  /// The rewarm's blocks' DRAM counts since it began taken back, their sectors asked owed at the rates.
  void end_rewarm() {
    for (const auto& [b, then] : rewarmed_) {
      HeadCounts& c = counts_[b];
      ledger_.owe(b, {c.read - then.read, c.write - then.write, c.red - then.red}, false);
      c.dram_read = then.dram_read;
      c.fabric = then.fabric;
      if (!before_.straight) c.dram_write = then.dram_write, c.dirtied = then.dirtied;
    }
    rewarmed_.clear();
  }

  /// Counts what is owed at the mean of its head's rates before and `after` (SkipLedger::settle()):
  /// a head that ended before the window after counts at its rates before alone.
  void settle(const std::vector<HeadRates>* after) {
    const auto rates = [this, after](std::uint64_t b) {
      const std::uint64_t h = b / xs_;
      return std::pair{rates_of(before_heads_, h, &before_), after != nullptr ? rates_of(*after, h, nullptr) : nullptr};
    };
    ledger_.settle(rates, sample_.stride(), counts_, [this](std::uint64_t b) { return weight_of(b); });
  }

  /// The turns slot `s`'s block still holds it, this one included (step() calls until one returns false).
  static std::uint64_t turns_left(const Slot& s) {
    if (s.done) return 1;
    std::uint64_t n = 0;
    for (std::size_t g = s.segment; g < s.rec->segments.size(); ++g) {
      const BlockBytes::Segment& seg = s.rec->segments[g];
      if (!seg.marker) return n + 1;
      n += g == s.segment ? seg.repeats - s.repeat : seg.repeats;
    }
    return n + 1;
  }

  /// Steps of block x (recorded if it has not been).
  std::uint64_t steps_of(std::uint64_t x) {
    if (!seen_[x]) (void)recording(x, probe_);
    return profiles_[x].steps;
  }

  /// The running blocks' ends, soonest first: (the round of a block's last step from now, its slot).
  using Ends = std::priority_queue<std::pair<std::uint64_t, std::size_t>, std::vector<std::pair<std::uint64_t, std::size_t>>,
                                   std::greater<>>;
  Ends running_ends() const {
    Ends ends;
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      if (slots_[i].busy) ends.emplace(turns_left(slots_[i]) - 1, i);
    }
    return ends;
  }

  /// Rounds from now until the round in which the launch changes (launch_changes()), at most `limit`.
  std::uint64_t rounds_to_change(std::uint64_t limit) {
    Ends ends = running_ends();
    std::uint64_t next = launched_;
    while (!ends.empty()) {
      const auto [round, i] = ends.top();
      if (round >= limit) return limit;
      if (launch_changes(next)) return round;
      ends.pop();
      ends.emplace(round + steps_of(next % xs_) + 1, i);
      ++next;
    }
    return limit;
  }

  /// Sectors slot `s`'s current segment asks in its repeats [first, first + count), by request.
  void ask(const Slot& s, std::uint64_t first, std::uint64_t count, std::array<std::uint64_t, 3>& out) {
    const BlockBytes::Segment& g = s.rec->segments[s.segment];
    const std::uint64_t sector = ctx_.hardware.l2.sector_bytes;
    for (std::uint32_t i = 0; i < s.count; ++i) {
      const bool inline_ = s.count <= kInline;
      const BlockBytes::Item& e = inline_ ? s.items[i] : s.rec->items[g.begin + i];
      const std::uint64_t offset = inline_ ? 0 : s.offset[e.tensor];
      std::uint64_t n = 0, total = 0;
      if (e.move % sector == 0) {  // moved by whole sectors: every repeat asks as many
        (void)tiles_.lines(e.at(offset, first), n);
        total = n * count;
      } else {
        for (std::uint64_t r = first; r < first + count; ++r) {
          (void)tiles_.lines(e.at(offset, r), n);
          total += n;
        }
      }
      out[static_cast<std::size_t>(e.request)] += total;
    }
  }

  /// Moves slot `s` up to `turns` turns on without the L2, as step() would, its sectors asked
  /// counted and owed; returns whether its block ended (in the last turn taken).
  bool advance(Slot& s, std::uint64_t turns) {
    std::array<std::uint64_t, 3> asked{};
    bool ended = false;
    std::uint64_t used = 0;
    while (used < turns && !ended) {
      if (s.done) {
        ended = true;
        ++used;
        break;
      }
      const bool marker = s.marker;
      const std::uint64_t c = marker ? std::min(turns - used, s.repeats - s.repeat) : 1;
      if (s.count > 0) stats_.steps_skipped += c;
      ask(s, s.repeat, c, asked);
      used += c;
      s.repeat += c;
      if (s.repeat == s.repeats) hold(s, s.segment + 1);
      ended = !marker;
    }
    HeadCounts& h = counts_[s.block];
    h.read += asked[0], h.write += asked[1], h.red += asked[2];
    ledger_.owe(s.block, asked, true);
    return ended;
  }

  /// Skips `rounds` rounds (rounds_to_change() says the launch does not change in them).
  void jump(std::uint64_t rounds) {
    Ends ends = running_ends();
    std::vector<std::uint64_t> at(slots_.size(), 0);  // the round each slot's block is at
    while (!ends.empty() && ends.top().first < rounds) {
      const auto [round, i] = ends.top();
      ends.pop();
      Slot& s = slots_[i];
      if (!advance(s, round - at[i] + 1) || launch_changes(launched_)) {
        throw std::logic_error("fast replay: a skip's blocks end where their steps do not say");
      }
      s.busy = false;
      if (!start(s)) {
        --running_;
        continue;
      }
      at[i] = round + 1;
      ends.emplace(round + turns_left(s), i);
    }
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      if (slots_[i].busy && at[i] < rounds && advance(slots_[i], rounds - at[i])) {
        throw std::logic_error("fast replay: a skip's block ends where its steps do not say");
      }
    }
    stats_.rounds_skipped += rounds;
  }

  /// The replayed blocks' counts, plus, for each head skipped (and each head replayed after the jump
  /// in a group begun before it), the mean of the steady heads at the same position in the group,
  /// block by block (x); the sampled counts times the stride.
  void extrapolate(KernelPrediction& out) const {
    // Skipped blocks of whole periods write back what they make dirty (in a steady state the L2 holds
    // as much dirty at the start of the skipped periods as at their end): steadier, block by block,
    // than the write-backs, which fall on whichever block evicts them. The heads of the group the
    // jump lands in write back what steady heads at their positions write back: the whole group's
    // write-backs, of which what the L2 holds dirty at the end is not part.
    using Sums = std::array<double, 6>;
    const auto add = [](Sums& a, const HeadCounts& c, bool dirtied, double w) {
      const std::array<std::uint64_t, 6> v{c.read, c.write, c.red, c.dram_read, dirtied ? c.dirtied : c.dram_write, c.fabric};
      for (std::size_t i = 0; i < v.size(); ++i) a[i] += w * static_cast<double>(v[i]);
    };
    Sums sum{};
    const std::uint64_t blocks = xs_ * heads_;
    const bool skipped = jump_to_ > jump_from_;
    // Replayed after the jump but counted from the steady heads: [jump_to_, counted_to).
    const std::uint64_t counted_to = skipped ? counted_from_ * xs_ : 0;
    for (std::uint64_t b = 0; b < blocks; ++b) {
      if (skipped && b >= jump_from_ && b < std::max(jump_to_, counted_to)) continue;
      const std::uint64_t at = opt_.order == LaunchOrder::x_major ? b : (b % heads_) * xs_ + b / heads_;
      add(sum, counts_[at], false, 1.0);
    }
    std::uint64_t heads_replayed = heads_;
    if (skipped) {
      // Heads counted from the steady ones, per position in the group (plan()).
      for (std::uint64_t h = warm_up_; h < lead_; ++h) {
        for (std::uint64_t x = 0; x < xs_; ++x) {
          add(sum, counts_[h * xs_ + x], true, dirtied_[h % period_]);
          if (written_[h % period_] > 0) add(sum, counts_[h * xs_ + x], false, written_[h % period_]);
        }
      }
      heads_replayed = heads_ - (jump_to_ - jump_from_) / xs_;
      // The parts of skipped blocks run about the jump (carry_phase()) write back lines of the
      // blocks replayed, which count, and make lines dirty that replayed blocks write back, which the
      // steady heads' mean has counted already.
      std::vector<std::uint64_t> parted = ends_;  // a block run across both ends of the cut: twice
      std::sort(parted.begin(), parted.end());
      parted.erase(std::unique(parted.begin(), parted.end()), parted.end());
      for (std::uint64_t b : parted) {
        sum[4] += static_cast<double>(counts_[b].dram_write) - static_cast<double>(counts_[b].dirtied);
      }
    }
    const auto whole = [](double v) { return static_cast<std::uint64_t>(std::llround(v)); };
    const double stride = sample_.stride();
    const std::uint64_t sector = ctx_.hardware.l2.sector_bytes;
    out.l2_read_sectors = whole(sum[0]);
    out.l2_write_sectors = whole(sum[1]);
    out.l2_red_sectors = whole(sum[2]);
    out.dram_read = Bytes(whole(sum[3] * stride) * sector);
    out.dram_write = Bytes(whole(sum[4] * stride) * sector);
    out.l2_fabric_read_sectors = whole(sum[5] * stride);
    out.heads_replayed = heads_replayed;
  }

  const Kernel& k_;
  const ScheduleContext& ctx_;
  const GpuModelOptions& opt_;
  MemoryLevel& l2_;
  const MemoryLevel& dram_;
  const AddressMap& amap_;
  const SetSample& sample_;
  FastKernelStats& stats_;
  TraceUse& trace_;
  RequestBatch batch_;
  // The levels' counters live as long as the levels: looked up once, read around each block's requests.
  const LevelCounters& dram_counts_;
  const LevelCounters& l2_counts_;
  TileLines tiles_;  ///< sample_'s lines of recent tiles
  bool direct_ = false;  ///< steps send their lines to the L2 themselves (send())
  std::uint64_t xs_, heads_, period_ = 1;
  std::uint64_t concurrent_ = 1;
  std::array<HeadMap, kTensorCount> maps_{};  ///< k_.head_map() of each tensor, looked up once
  std::vector<HeadCounts> counts_;
  std::vector<BlockWork> profiles_;  ///< per x: what scheduling the launch needs
  KernelBlocks own_blocks_;  ///< when the caller keeps none
  KernelBlocks& blocks_;     ///< per x, empty until recorded (and while there is no room)
  std::vector<bool> seen_;   ///< per x: profiles_[x] is set
  BlockRecorder scratch_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> spans_;  ///< [first, end) bytes per tensor and copy: first period
  std::vector<std::pair<std::uint64_t, std::uint64_t>> head_spans_;  ///< the same, first head
  // The shortened launch: blocks [0, jump_from_) then [jump_to_, all) in launch order; heads
  // [warm_up_, lead_) are the steady ones; heads from jump_to_'s to counted_from_ are replayed (for
  // the L2 they leave) but counted from the steady ones.
  std::uint64_t launched_ = 0, replayed_blocks_ = 0;
  bool planned_ = false;
  std::vector<Slot> slots_;
  std::vector<BlockBytes> own_;  ///< per slot: its block, when blocks_ is full
  // Checkpoints (KernelTrace): the last launch count checked, whether the L2 can be digested, the
  // next of the followed trace's checkpoints, whether its rest was taken.
  std::uint64_t checked_ = ~std::uint64_t{0};
  bool digestible_ = true;
  std::uint64_t cache_lines_ = 0;  ///< lines the sampled L2 holds
  std::size_t followed_ = 0;
  bool converged_ = false;
  std::uint64_t warm_up_ = 0, lead_ = 0, jump_from_ = ~std::uint64_t{0}, jump_to_ = 0, counted_from_ = 0;
  /// Per position in the group: the heads each steady head stands for, counted by what they make
  /// dirty (whole periods skipped) and by what they write back (the group the jump lands in).
  std::vector<double> dirtied_, written_;
  double* weight_ = nullptr;  ///< TraceUse::tally_weight
  // After the jump (carry_phase()): per slot, the blocks it runs, last first, each with its first
  // turns not replayed and the turns it runs (0: to its end); per slot, its last block before the jump.
  struct Part {
    std::uint64_t block = 0, skip = 0, left = 0;
  };
  std::vector<std::vector<Part>> after_;
  std::vector<std::uint64_t> lead_last_;
  std::size_t first_after_ = 0;  ///< the slot that reaches the jump first
  std::vector<std::uint64_t> ends_;  ///< the skipped blocks run in part about the jump, once a part
  // Steps counted from an earlier one (step()): the last step of each partition that only hit,
  // valid while the L2's contents are those it found (`changes`).
  struct Pure {
    std::vector<std::pair<TileBytes, Request>> key;  ///< its transfers, mapped to bytes
    std::array<std::uint64_t, 3> sectors{};          ///< read, write, reduce sectors it asked
    bool loads_only = true;
    std::uint64_t changes = ~std::uint64_t{0};  ///< content_changes() after it (its partition's when loads_only)
  };
  std::array<Pure, 2> pure_;
  std::uint64_t line_bytes_ = 128, sets_ = 1;  ///< of the L2, per partition
  bool keeps_new_lines_ = false;  ///< the policy never evicts a set's newest lines for a fill (LRU, FIFO)
  std::vector<std::pair<TileBytes, Request>> key_;  ///< the current step's transfers
  // Rounds skipped (above).
  bool skipping_ = false;
  std::size_t running_ = 0;  ///< slots busy (run())
  Phase phase_ = Phase::count;
  std::array<std::uint64_t, 3> asked_{};  ///< sectors asked in the steps replayed or reused
  std::array<std::uint64_t, 7> window_{};  ///< now() when the window opened
  std::uint64_t window_rounds_ = 0;
  bool have_ref_ = false;
  Rates ref_, before_;  ///< the window the later ones repeat; the window's before the skip owed
  std::vector<HeadRates> before_heads_;  ///< per head running, its rates in the window before the skip owed
  std::vector<std::pair<std::uint64_t, HeadCounts>> window_blocks_;  ///< blocks run in the window, their counts at its start
  std::uint64_t span_ = 0;  ///< rounds over which the windows have repeated `ref_`
  std::uint64_t interval_ = 0;  ///< rounds skipped and rewarmed since the last window
  std::uint64_t rewarm_sectors_ = 0, rewarm_from_ = 0;  ///< DRAM reads a rewarm reads; the counter where it began
  std::uint64_t rewarm_rounds_ = 0, rewarm_limit_ = 0;  ///< rounds the rewarm has run; the most it runs
  std::vector<std::pair<std::uint64_t, HeadCounts>> rewarmed_;  ///< blocks run in the rewarm, their counts before it
  SkipLedger ledger_;  ///< the sectors owed, and the error
  BlockBytes probe_;  ///< a block recorded for its steps alone (steps_of())
};

}  // namespace

KernelPrediction run_fast_kernel(const Kernel& k, const ScheduleContext& ctx, const GpuModelOptions& opt,
                                 MemoryLevel& l2, const MemoryLevel& dram,
                                 const AddressMap& amap, const SetSample& sample, FastKernelStats& stats,
                                 TraceUse& trace) {
  return FastKernel(k, ctx, opt, l2, dram, amap, sample, stats, trace).run();
}

}  // namespace iosim
