#include "sim/gpu/fast_replay.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <numeric>
#include <queue>
#include <stdexcept>

#include "sim/core/error.h"
#include "sim/gpu/fast_kernel.h"
#include "sim/gpu/occupancy.h"
#include "sim/memory/l2_cache.h"
#include "sim/memory/partitioned_l2.h"

namespace iosim {

namespace {

/// Line requests a schedule makes, all kernels and heads: tiles in lines, from a Walk::runs count.
class LineEstimate final : public EventSink {
 public:
  LineEstimate(DType element, std::uint32_t line_bytes) : element_(element), line_bytes_(line_bytes) {}
  void on_transfer(const Transfer& t) override {
    const std::uint64_t bytes = t.tile.elements().value * size_bytes(storage_type(t.tile.tensor, element_));
    lines += static_cast<double>(t.times) * static_cast<double>(ceil_div(bytes, line_bytes_) + 1);
    transfers += static_cast<double>(t.times);
  }
  void on_compute(const Compute&) override {}
  double lines = 0;
  double transfers = 0;

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

/// Which tensors a kernel's transfers touch.
class TensorsTouched final : public EventSink {
 public:
  void on_transfer(const Transfer& t) override { any[index(t.tile.tensor)] = true; }
  void on_compute(const Compute&) override {}
  std::array<bool, kTensorCount> any{};
};

}  // namespace

FirstPass first_pass(const Schedule& s, const ScheduleContext& ctx, const GpuModelOptions& opt) {
  FirstPass f;
  LineEstimate est(ctx.problem.dtype, ctx.hardware.l2.line_bytes);
  s.emit(Emitter(est, Walk::runs));
  f.lines = est.lines;
  f.transfers = est.transfers;
  // The share of the heads replayed, the largest of any kernel's, from a period's footprint in
  // the tensors the schedule touches (every kernel's counted with them all).
  TensorsTouched touched;
  s.emit(Emitter(touched, Walk::runs));
  const AddressMap amap(ctx.problem, ctx.hardware.l2.line_bytes, ctx.hardware.l2.sector_bytes);
  double share = 0;
  for (const Kernel* k : s.kernels()) {
    const std::uint64_t heads = k->grid_heads();
    const bool shared_kv = k->head_map(Tensor::K) == HeadMap::kv_of_query || k->head_map(Tensor::V) == HeadMap::kv_of_query;
    std::uint64_t period = shared_kv ? ctx.problem.group() : 1;
    if (period == 0 || heads % period != 0) period = heads;
    std::uint64_t bytes = 0, head_bytes = 0;  // each tensor's distance from one period (head) to the next
    for (Tensor t : kAllTensors) {
      if (!touched.any[index(t)]) continue;
      const HeadMap m = k->head_map(t);
      const std::uint64_t per_period = amap.head_offset(t, period, m) - amap.head_offset(t, 0, m);
      bytes += per_period;
      // One head touches its group's K/V whole.
      head_bytes += m == HeadMap::kv_of_query ? per_period : amap.head_offset(t, 1, m) - amap.head_offset(t, 0, m);
    }
    double replayed = 1;
    if (opt.skip_heads && bytes > 0 && head_bytes > 0) {
      // As FastKernel::plan() (its waves aside): a warm-up of whole periods, two steady periods, a
      // tail of heads where heads last a wave or more and share K/V (else of whole periods).
      const std::uint64_t twice_l2 = 2 * ctx.hardware.l2.capacity.value;
      const std::uint64_t enough = period * ceil_div(twice_l2, bytes);
      const std::uint64_t steady = 2 * period;
      const std::uint64_t xs = k->grid_x().count();
      const std::uint64_t concurrent = occupancy(k->launch(), ctx.hardware.sm).concurrent;
      const std::uint64_t tail = period > 1 && xs >= concurrent ? std::min(enough, ceil_div(twice_l2, head_bytes)) : enough;
      const std::uint64_t heads_replayed = enough + steady + tail;
      if (heads_replayed + period <= heads) replayed = static_cast<double>(heads_replayed) / static_cast<double>(heads);
    }
    share = std::max(share, replayed);
  }
  f.lines_replayed = f.lines * (s.kernels().empty() ? 1.0 : share);
  // Heads skipped: about four periods replayed when the heads are many and large (an estimate only:
  // it sets the stride, not the counts).
  const auto grid = static_cast<double>(ctx.problem.batch * ctx.problem.heads);
  f.heads_replayed = opt.skip_heads ? std::min(1.0, 4.0 * static_cast<double>(ctx.problem.group()) / grid) : 1.0;
  f.budget = std::max(static_cast<double>(FastReplay::kLineBudget),
                      FastReplay::kLinesPerTransfer * f.transfers * f.heads_replayed);
  if (opt.sample_stride != 0) {
    f.stride = f.line_stride = opt.sample_stride;
    return f;
  }
  // The least power of two that brings the replayed line requests near the budget, keeping at
  // least kMinSets sets per partition.
  const std::uint64_t sets = sets_per_partition(ctx.hardware.l2);
  const auto stride_for = [&](double budget) {
    const double want = f.lines * f.heads_replayed / budget;
    std::uint32_t limit = 1;
    while (limit < want && limit < (1u << 20)) limit *= 2;
    limit = static_cast<std::uint32_t>(std::min<std::uint64_t>(limit, std::max<std::uint64_t>(1, sets / FastReplay::kMinSets)));
    return SetSample::largest_stride(sets, limit);
  };
  f.stride = stride_for(f.budget);
  f.line_stride = stride_for(static_cast<double>(FastReplay::kLineBudget));
  return f;
}

void SampledDram::add(std::uint64_t line, std::uint32_t mask, int which) {
  const std::uint64_t n = sector_count(mask);
  (which == 0 ? counters_.read_sectors : counters_.write_sectors) += n;
  per_set_[line % per_set_.size()][static_cast<std::size_t>(which)] += *weight_ * static_cast<double>(n);
}

void SampledDram::reset_counters() {
  counters_ = {};
  std::fill(per_set_.begin(), per_set_.end(), std::array<double, 2>{});
}

double sample_error(const std::vector<double>& per_set, std::uint32_t stride) {
  if (stride == 1 || per_set.size() < 2) return 0;
  const auto m = static_cast<double>(per_set.size());
  const double r = static_cast<double>(stride);
  double sum = 0;
  for (double v : per_set) sum += v;
  if (sum == 0) return 0;
  if (per_set.size() < 2 * kErrorGroups) {
    // Too few sets for groups: the sets taken as drawn at random, m from m × stride without
    // replacement (conservative: a systematic sample of a contiguous range is nearly exact).
    double squares = 0;
    for (double v : per_set) squares += v * v;
    const double variance = std::max(0.0, (squares - sum * sum / m) / (m - 1));
    return std::sqrt(r * r * m * variance * (1.0 - 1.0 / r)) / (r * sum);
  }
  // Interpenetrating subsamples: sampled set i belongs to group i mod G, each group a systematic
  // sample at stride G × stride with its own start; a group's mean per set estimates the sample's,
  // and the spread of the G estimates gives the variance of their mean, the sample's estimate.
  // Per set, not per group: where G does not divide the sets (120 at the H200's stride 128), the
  // groups hold ⌊m / G⌋ or ⌈m / G⌉ sets, and their sums differ by a set's count however even the
  // counts are (a 1.7% error from counts all equal).
  std::array<double, kErrorGroups> g{};
  for (std::size_t i = 0; i < per_set.size(); ++i) g[i % kErrorGroups] += per_set[i];
  const std::size_t base = per_set.size() / kErrorGroups, extra = per_set.size() % kErrorGroups;
  double mean = 0;
  for (std::size_t i = 0; i < kErrorGroups; ++i) {
    g[i] /= static_cast<double>(base + (i < extra ? 1 : 0));
    mean += g[i];
  }
  const double groups = kErrorGroups;
  mean /= groups;
  double squares = 0;
  for (double v : g) squares += (v - mean) * (v - mean);
  return std::sqrt(squares / (groups - 1) / groups) / mean;
}

double share_error(const std::vector<double>& per_set, std::uint32_t stride, double dram_sectors) {
  double sum = 0;
  for (double v : per_set) sum += v;
  return sum == 0 ? 0 : sample_error(per_set, stride) * sum / (sum + dram_sectors);
}

double SampledDram::weighted_sectors() const {
  double sum = 0;
  for (const auto& [read, write] : per_set_) sum += read + write;
  return sum;
}

double SampledDram::relative_error(std::uint32_t stride) const {
  const double total = weighted_sectors();
  if (total == 0) return 0;
  double worst = 0;
  std::vector<double> v(per_set_.size());
  for (std::size_t which = 0; which < 2; ++which) {
    double sum = 0;
    for (std::size_t i = 0; i < v.size(); ++i) sum += v[i] = per_set_[i][which];
    // The error in sectors, as a share of all the kernel's DRAM sectors: a few sectors written
    // beside many read cannot force a smaller stride however unevenly the sets hold them.
    worst = std::max(worst, sample_error(v, stride) * sum / total);
  }
  return worst;
}

FastReplay::FastReplay(const ScheduleContext& ctx, const GpuModelOptions& opt, std::uint32_t stride)
    : ctx_(ctx), opt_(opt),
      sample_(sets_per_partition(ctx.hardware.l2), stride, ctx.hardware.l2.line_bytes, ctx.hardware.l2.sector_bytes),
      dram_(sets_per_partition(ctx.hardware.l2) / stride, &weight_),
      amap_(ctx.problem, ctx.hardware.l2.line_bytes, ctx.hardware.l2.sector_bytes) {
  const L2Spec spec = shrunk(ctx.hardware.l2, sample_.stride());
  // Sampled lines are already placed (set_sample.h): the small cache indexes them modulo.
  const SetIndex index = sample_.stride() == 1 ? SetIndex::hashed : SetIndex::modulo;
  std::unique_ptr<Replacement> policy = make_replacement(opt.replacement);
  if (!policy) throw InputError("unknown L2 replacement policy '" + opt.replacement + "' (known: lru, fifo, random)");
  if (spec.partitions == 2) {
    auto two = std::make_unique<PartitionedL2>(spec, [&] { return make_replacement(opt.replacement); }, dram_, index);
    if (sample_.stride() > 1) {
      two->set_renamed_home(sample_.lines_per_tag());
      fabric_per_set_.assign(sets_per_partition(ctx.hardware.l2) / sample_.stride(), 0);
      two->tally_fabric(&fabric_per_set_, &weight_);
    }
    l2_ = std::move(two);
  } else {
    l2_ = std::make_unique<L2Cache>(spec, std::move(policy), dram_, index);
  }
}

std::unique_ptr<FastReplay> FastReplay::fit(const Schedule& s, const ScheduleContext& ctx, const GpuModelOptions& opt,
                                            Prediction& cold) {
  const FirstPass first = first_pass(s, ctx, opt);
  std::uint32_t stride = first.stride;
  const std::vector<const Kernel*> kernels = s.kernels();
  std::shared_ptr<std::vector<KernelBlocks>> blocks;
  for (;;) {
    auto r = std::make_unique<FastReplay>(ctx, opt, stride);
    if (blocks) r->blocks_ = blocks;  // the blocks are the same at any stride
    blocks = r->blocks_;
    cold = r->pass(kernels);
    // A smaller stride shrinks the sample's error, not the rounds skipped's.
    const double e = r->sampling_error();
    if (stride == 1 || e <= kMaxStandardError) return r;
    // Were the sets drawn at random, the variance would grow with the stride: the stride that would
    // meet the bound, a power of two, at most half this one. A systematic sample's error falls
    // faster (the groups' spread at few sets overstates it), so at most kMaxStrideStep smaller.
    const double ratio = (kMaxStandardError / e) * (kMaxStandardError / e);
    std::uint32_t next = 1;
    while (next * 2 <= static_cast<double>(stride) * ratio && next * 2 < stride) next *= 2;
    next = std::max(std::min(next, stride / 2), stride / kMaxStrideStep);
    // Where `next` would likely miss the bound too (were the sets drawn at random), the smallest
    // stride still within the budget (this pass's replayed lines × stride ÷ the smaller one) instead:
    // one pass fewer, at a cost the budget allows.
    std::uint32_t affordable = stride;
    while (affordable > 1 && static_cast<double>(r->stats().lines * (stride / (affordable / 2))) <= first.budget) affordable /= 2;
    const bool next_misses = e * std::sqrt(static_cast<double>(next) / stride) > kMaxStandardError;
    stride = next_misses ? std::min(next, affordable) : next;
  }
}

KernelBlocks& FastReplay::blocks_for(std::size_t i, std::size_t kernels) {
  if (blocks_->size() != kernels) blocks_->assign(kernels, {});
  return (*blocks_)[i];
}

Prediction FastReplay::pass(const std::vector<const Kernel*>& kernels) {
  if (spent_) throw std::logic_error("FastReplay: pass() after warm()");
  Prediction p;
  p.l2 = L2Mode::fast;
  p.sample_stride = sample_.stride();
  p.sector_bytes = ctx_.hardware.l2.sector_bytes;
  p.flushed_each_kernel = opt_.flush_each_kernel;
  error_ = 0;
  sample_error_ = 0;
  traces_.assign(kernels.size(), {});
  double last_dram = 0;  // the last kernel's DRAM sectors, reads and writes, in the sampled sets, weighted
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    if (opt_.flush_each_kernel) l2_->empty();
    l2_->reset_counters();
    dram_.reset_counters();
    std::fill(fabric_per_set_.begin(), fabric_per_set_.end(), 0);
    TraceUse use{opt_.follow_cold ? &traces_[i] : nullptr, nullptr};
    use.blocks = &blocks_for(i, kernels.size());
    use.tally_weight = &weight_;
    p.kernels.push_back(run_fast_kernel(*kernels[i], ctx_, opt_, *l2_, dram_, amap_, sample_, stats_, use));
    const double sampling = dram_.relative_error(sample_.stride());
    last_dram = dram_.weighted_sectors();
    const double fabric = share_error(fabric_per_set_, sample_.stride(), last_dram);
    sample_error_ = std::max({sample_error_, sampling, fabric});
    // Rounds skipped (GpuModelOptions::skip_rounds): their error, a bias shared by every set, is added
    // to the sample's, relative to the kernel's DRAM sectors (and fabric reads) as extrapolated.
    const KernelPrediction& kp = p.kernels.back();
    const double per_sector = static_cast<double>(ctx_.hardware.l2.sector_bytes) * sample_.stride();
    const double dram = static_cast<double>(kp.dram_read.value + kp.dram_write.value) / per_sector;
    const double fabric_sectors = static_cast<double>(kp.l2_fabric_read_sectors) / sample_.stride();
    const double skip_dram = dram > 0 ? use.skip_dram_error / dram : 0;
    const double skip_fabric = dram + fabric_sectors > 0 ? use.skip_fabric_error / (dram + fabric_sectors) : 0;
    error_ = std::max({error_, sampling + skip_dram, fabric + skip_fabric});
  }
  p.dirty_at_end = Bytes(l2_->dirty_bytes().value * sample_.stride());
  dirty_at_end_ = p.dirty_at_end;
  std::vector<double> dirty(sets_per_partition(ctx_.hardware.l2) / sample_.stride());
  for (std::size_t set = 0; set < dirty.size(); ++set) {
    dirty[set] = static_cast<double>(l2_->dirty_sectors(set));
  }
  const double dirty_error = share_error(dirty, sample_.stride(), last_dram);
  error_ = std::max(error_, dirty_error);
  sample_error_ = std::max(sample_error_, dirty_error);
  return p;
}

Prediction FastReplay::warm(const std::vector<const Kernel*>& kernels) {
  if (spent_) throw std::logic_error("FastReplay: warm() twice");
  l2_->flush();
  Prediction p;
  p.l2 = L2Mode::fast;
  p.sample_stride = sample_.stride();
  p.sector_bytes = ctx_.hardware.l2.sector_bytes;
  p.flushed_each_kernel = opt_.flush_each_kernel;
  p.warm = true;
  const bool follow = opt_.follow_cold && traces_.size() == kernels.size();
  bool converged = false;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    if (converged) {
      // This kernel starts from the state the followed run's did: its result.
      p.kernels.push_back(traces_[i].out);
      ++stats_.followed;
      continue;
    }
    if (opt_.flush_each_kernel) l2_->empty();
    l2_->reset_counters();
    dram_.reset_counters();
    TraceUse use{nullptr, follow && traces_[i].complete ? &traces_[i] : nullptr};
    use.blocks = &blocks_for(i, kernels.size());
    p.kernels.push_back(run_fast_kernel(*kernels[i], ctx_, opt_, *l2_, dram_, amap_, sample_, stats_, use));
    converged = use.converged;
  }
  p.dirty_at_end = converged ? dirty_at_end_ : Bytes(l2_->dirty_bytes().value * sample_.stride());
  spent_ = true;
  return p;
}

}  // namespace iosim
