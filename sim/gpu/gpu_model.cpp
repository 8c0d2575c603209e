#include "sim/gpu/gpu_model.h"

#include <algorithm>

#include "sim/core/error.h"
#include "sim/core/progress.h"
#include "sim/gpu/address_map.h"
#include "sim/gpu/block_recorder.h"
#include "sim/gpu/fast_replay.h"
#include "sim/gpu/read_merge.h"
#include "sim/gpu/request_batch.h"
#include "sim/gpu/spill_stores.h"
#include "sim/gpu/store_requests.h"
#include "sim/memory/dram.h"
#include "sim/memory/l2_cache.h"
#include "sim/memory/partitioned_l2.h"

namespace iosim {

namespace {

/// A block running in one slot of an SM.
struct Slot {
  std::uint64_t block = 0;  ///< launch order (for the observer)
  std::uint64_t head = 0;
  std::uint32_t sm = 0;  ///< the SM it runs on
  BlockRecorder rec;
  std::size_t next = 0;
  bool busy = false;
};

class KernelRun {
 public:
  KernelRun(const Kernel& k, const ScheduleContext& ctx, const GpuModelOptions& opt, MemoryLevel& l2,
            const AddressMap& amap)
      : k_(k), ctx_(ctx), opt_(opt), l2_(l2), amap_(amap), batch_(l2) {}

  KernelPrediction run() {
    KernelPrediction out;
    out.name = std::string(k_.name());
    out.launch = k_.launch();
    out.occupancy = occupancy(out.launch, ctx_.hardware.sm);
    if (!out.occupancy.infeasible.empty()) {
      throw InputError("kernel " + out.name + " cannot run: " + out.occupancy.infeasible);
    }
    const std::uint64_t xs = k_.grid_x().count(), heads = k_.grid_heads();
    out.blocks = xs * heads;
    out.waves = static_cast<double>(out.blocks) / static_cast<double>(out.occupancy.concurrent);
    const std::uint64_t sms = ctx_.hardware.sm.count;
    std::vector<SmLoad> load(sms);
    std::vector<Slot> slots(std::min<std::uint64_t>(out.occupancy.concurrent, out.blocks));
    std::uint64_t launched = 0;
    const auto start = [&](Slot& s) {
      const std::uint64_t b = launched++;
      const std::uint64_t x = opt_.order == LaunchOrder::x_major ? b % xs : b / heads;
      s.head = opt_.order == LaunchOrder::x_major ? b / xs : b % heads;
      s.rec.reset(ctx_.problem.dtype);
      const Tiling g = k_.grid_x();
      k_.block(Span{x, 1, g.size(x), g.begin(x)}, Emitter(s.rec, Walk::each));
      s.next = 0;
      s.busy = true;
      s.block = b;
      if (opt_.observer != nullptr) {
        const auto slot = static_cast<std::uint64_t>(&s - slots.data());
        opt_.observer->on_block(b, slot, slot % sms);
      }
    };
    // Slot i runs on SM i mod SMs.
    for (std::size_t i = 0; i < slots.size(); ++i) slots[i].sm = static_cast<std::uint32_t>(i % sms);
    if (opt_.observer != nullptr) opt_.observer->on_kernel(out.name, out.blocks, out.occupancy.concurrent, sms);
    for (Slot& s : slots) start(s);
    std::size_t running = slots.size();
    const std::string progress_what = "GPU model, " + out.name + ": blocks";  // progress (sim/core/progress.h)
    std::uint64_t finished = 0;
    while (running > 0) {
      merge_.next_round();  // a round: every running block takes one step (read_merge.h)
      for (std::size_t i = 0; i < slots.size(); ++i) {
        Slot& s = slots[i];
        if (!s.busy) continue;
        if (step(s)) continue;
        SmLoad& l = load[i % sms];
        const ComputeCounts& c = s.rec.compute;
        l.matmul_flops += static_cast<double>(c.matmul.value);
        l.vector_flops += static_cast<double>(c.vector.value);
        l.special_ops += static_cast<double>(c.special.value);
        l.sram_bytes += static_cast<double>(s.rec.sram().value);
        out.matmul += c.matmul;
        out.vector += c.vector;
        out.special += c.special;
        out.sram += s.rec.sram();
        s.busy = false;
        report_progress(progress_what, ++finished, out.blocks);  // progress (sim/core/progress.h)
        if (launched < out.blocks) {
          start(s);
        } else {
          --running;
        }
      }
    }
    batch_.drain();
    out.l2_merged_read_sectors = merge_.merged_sectors();
    for (const SmLoad& l : load) {
      out.busiest.matmul_flops = std::max(out.busiest.matmul_flops, l.matmul_flops);
      out.busiest.vector_flops = std::max(out.busiest.vector_flops, l.vector_flops);
      out.busiest.special_ops = std::max(out.busiest.special_ops, l.special_ops);
      out.busiest.sram_bytes = std::max(out.busiest.sram_bytes, l.sram_bytes);
    }
    return out;
  }

 private:
  /// Runs `s` up to its next step marker; false once the block has no events left.
  bool step(Slot& s) {
    auto& ev = s.rec.events;
    while (s.next < ev.size()) {
      const auto& e = ev[s.next++];
      if (e.step) return true;
      std::vector<LineAccess>& lines = batch_.lines();
      const std::size_t first = lines.size();
      amap_.lines(e.tile, s.head, k_.head_map(e.tile.tensor), lines);
      const Request r = request_of(e.dir);
      if (opt_.merge_reads && r == Request::read) drop_merged(lines, first, s.sm);
      batch_.mark(r, s.sm, 0);
      if (batch_.full()) batch_.drain();
      if (opt_.observer != nullptr) {  // the observer sees each transfer's effect on the L2 on its own
        batch_.drain();
        opt_.observer->on_transfer(s.block, e.tile, e.dir, l2_.counters());
      }
    }
    return false;
  }
  /// Removes from lines[first, end) the reads of SM `sm` that merge into a lookup of this round.
  void drop_merged(std::vector<LineAccess>& lines, std::size_t first, std::uint32_t sm) {
    const std::uint32_t partition = l2_.partition_of(sm);
    std::size_t kept = first;
    for (std::size_t i = first; i < lines.size(); ++i) {
      if (!merge_.merged(lines[i].line, lines[i].mask, partition)) lines[kept++] = lines[i];
    }
    lines.resize(kept);
  }

  const Kernel& k_;
  const ScheduleContext& ctx_;
  const GpuModelOptions& opt_;
  MemoryLevel& l2_;
  const AddressMap& amap_;
  RequestBatch batch_;
  ReadMerge merge_;
};

}  // namespace

std::uint64_t Prediction::l2_read_sectors() const {
  std::uint64_t s = 0;
  for (const auto& k : kernels) s += k.l2_read_sectors;
  return s;
}
std::uint64_t Prediction::xbar_read_sectors() const {
  std::uint64_t s = 0;
  for (const auto& k : kernels) s += k.xbar_read_sectors();
  return s;
}
std::uint64_t Prediction::l2_write_sectors() const {
  std::uint64_t s = 0;
  for (const auto& k : kernels) s += k.l2_write_sectors;
  return s;
}
std::uint64_t Prediction::l2_red_sectors() const {
  std::uint64_t s = 0;
  for (const auto& k : kernels) s += k.l2_red_sectors;
  return s;
}
Bytes Prediction::dram_read() const {
  Bytes b;
  for (const auto& k : kernels) b += k.dram_read;
  return b;
}
Bytes Prediction::dram_write() const {
  Bytes b = dirty_at_end;
  for (const auto& k : kernels) b += k.dram_write;
  return b;
}

const char* l2_mode_name(L2Mode m) { return m == L2Mode::fast ? "fast" : "exact"; }

namespace {

/// The exact replay: every request through the whole L2. pass() runs every kernel once, counting.
class ExactReplay {
 public:
  ExactReplay(const ScheduleContext& ctx, const GpuModelOptions& opt)
      : ctx_(ctx), opt_(opt), dram_(ctx.hardware.l2.sector_bytes),
        amap_(ctx.problem, ctx.hardware.l2.line_bytes, ctx.hardware.l2.sector_bytes) {
    const L2Spec& spec = ctx.hardware.l2;
    std::unique_ptr<Replacement> policy = make_replacement(opt.replacement);
    if (!policy) throw InputError("unknown L2 replacement policy '" + opt.replacement + "' (known: lru, fifo, random)");
    if (spec.partitions == 2) {
      l2_ = std::make_unique<PartitionedL2>(spec, [&] { return make_replacement(opt.replacement); }, dram_);
    } else {
      l2_ = std::make_unique<L2Cache>(spec, std::move(policy), dram_);
    }
  }

  Prediction pass(const std::vector<const Kernel*>& kernels) {
    Prediction p;
    p.sector_bytes = ctx_.hardware.l2.sector_bytes;
    p.flushed_each_kernel = opt_.flush_each_kernel;
    p.merged_reads = opt_.merge_reads;
    for (const Kernel* k : kernels) {
      if (opt_.flush_each_kernel) l2_->empty();
      l2_->reset_counters();
      dram_.reset_counters();
      KernelPrediction kp = KernelRun(*k, ctx_, opt_, *l2_, amap_).run();
      kp.l2_read_sectors = l2_->counters().read_sectors;
      kp.l2_write_sectors = l2_->counters().write_sectors;
      kp.l2_red_sectors = l2_->counters().reduce_sectors;
      kp.l2_fabric_read_sectors = l2_->counters().fabric_read_sectors;
      kp.dram_read = dram_.read_bytes();
      kp.dram_write = dram_.write_bytes();
      kp.heads_replayed = k->grid_heads();
      p.kernels.push_back(std::move(kp));
    }
    p.dirty_at_end = l2_->dirty_bytes();
    return p;
  }
  void flush() { l2_->flush(); }

 private:
  const ScheduleContext& ctx_;
  const GpuModelOptions& opt_;
  Dram dram_;
  std::unique_ptr<MemoryLevel> l2_;
  AddressMap amap_;
};

template <class Replay>
ColdWarm cold_and_warm(Replay& r, const std::vector<const Kernel*>& kernels, bool want_cold, LaunchOrder order) {
  ColdWarm out;
  out.cold = r.pass(kernels);
  out.cold.order = order;
  r.flush();
  out.warm = r.pass(kernels);
  out.warm.warm = true;
  out.warm.order = order;
  if (!want_cold) out.cold = {};
  return out;
}

template <class Replay>
Prediction one(Replay& r, const std::vector<const Kernel*>& kernels, bool warm, LaunchOrder order) {
  if (!warm) {
    Prediction p = r.pass(kernels);
    p.order = order;
    return p;
  }
  return cold_and_warm(r, kernels, false, order).warm;
}

}  // namespace

namespace {

/// Only the exact replay merges reads.
void check_merge(const GpuModelOptions& opt) {
  if (opt.merge_reads && opt.l2 == L2Mode::fast) throw InputError("merging L2 reads needs the exact L2 replay");
}

Prediction replay(const Schedule& s, const ScheduleContext& ctx, const GpuModelOptions& opt) {
  const std::vector<const Kernel*> kernels = s.kernels();
  check_merge(opt);
  // An observer watches the exact replay (its hooks are in KernelRun); the fast one has none. Paged K/V
  // takes the exact replay too: the fast one places a tile as one strided range per head (block_bytes.h).
  if (opt.l2 == L2Mode::fast && opt.observer == nullptr && !ctx.problem.paged()) {
    Prediction cold;
    GpuModelOptions fast = opt;  // no warm run: the cold one keeps no trace to follow
    fast.follow_cold = opt.follow_cold && opt.warm;
    const std::unique_ptr<FastReplay> r = FastReplay::fit(s, ctx, fast, cold);
    cold.order = opt.order;
    if (!opt.warm) return cold;
    Prediction warm = r->warm(kernels);
    warm.order = opt.order;
    return warm;
  }
  // The observer watches the measured run only: a warm run's filling pass goes unobserved.
  GpuModelOptions watched = opt;
  watched.observer = nullptr;
  ExactReplay r(ctx, watched);  // r reads `watched` as it runs
  if (!opt.warm) {
    watched.observer = opt.observer;
    return one(r, kernels, false, opt.order);
  }
  (void)r.pass(kernels);
  r.flush();
  watched.observer = opt.observer;
  Prediction warm = r.pass(kernels);
  warm.warm = true;
  warm.order = opt.order;
  return warm;
}

ColdWarm replay_cold_warm(const Schedule& s, const ScheduleContext& ctx, const GpuModelOptions& opt) {
  const std::vector<const Kernel*> kernels = s.kernels();
  check_merge(opt);
  if (opt.l2 == L2Mode::fast) {
    ColdWarm out;
    const std::unique_ptr<FastReplay> r = FastReplay::fit(s, ctx, opt, out.cold);
    out.warm = r->warm(kernels);
    out.cold.order = out.warm.order = opt.order;
    return out;
  }
  ExactReplay r(ctx, opt);
  return cold_and_warm(r, kernels, true, opt.order);
}

}  // namespace

// The replays count what the schedule's kernels ask of the L2; a compiled kernel's spills and the
// further requests of stores written in pieces smaller than a sector are added after them, cold and
// warm alike (spill_stores.h, store_requests.h).
Prediction predict(const Schedule& s, const ScheduleContext& ctx, const GpuModelOptions& opt) {
  Prediction p = replay(s, ctx, opt);
  add_spill_stores(p, s.kernels(), ctx);
  add_store_requests(p, s.kernels(), ctx);
  return p;
}

ColdWarm predict_cold_warm(const Schedule& s, const ScheduleContext& ctx, const GpuModelOptions& opt) {
  ColdWarm out = replay_cold_warm(s, ctx, opt);
  const std::vector<const Kernel*> kernels = s.kernels();
  add_spill_stores(out.cold, kernels, ctx);
  add_spill_stores(out.warm, kernels, ctx);
  add_store_requests(out.cold, kernels, ctx);
  add_store_requests(out.warm, kernels, ctx);
  return out;
}

}  // namespace iosim
