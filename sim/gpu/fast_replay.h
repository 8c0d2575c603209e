// The fast replay of the GPU model (GpuModelOptions::l2 = fast): the same blocks, launched and
// interleaved as in the exact replay (gpu_model.cpp), through a sample of the L2's sets
// (set_sample.h), and, where a kernel's heads repeat, through a few of its heads only:
//
//  - Heads. In x-major launch order a kernel runs head after head (a period: one head, or one GQA
//    group of heads sharing K and V). Once the heads replayed have touched twice the L2's capacity,
//    the L2 holds nothing of the kernel that came before: each later head sees what its predecessor
//    left, as the next one will. So the replay runs the leading heads (that warm-up, then two steady
//    periods), jumps to the last heads (again twice the L2's capacity, so that what the next kernel
//    finds is what the real run leaves; its slots run the blocks and turns they run in the whole
//    launch, which do not depend on the L2; heads, not whole periods, where heads last a wave or more
//    and share K/V), and adds the steady periods' mean per head, at the same position in the group,
//    for the heads it skipped and for the tail's heads whose group began before the jump.
//  - Sets. Every stride-th set is simulated; misses, write-backs, fabric reads and dirty bytes are
//    scaled by the stride. The stride is chosen so that about kLineBudget line requests are replayed.
//    The sample's error is estimated from per-set tallies weighed as the heads are extrapolated (a
//    steady head's sectors count for the heads it stands for too).
//
// Exact in any case: the sectors the SMs ask for (counted line by line, sampled or not, on every
// replayed head; skipped heads ask for what their steady neighbours ask), blocks, waves, occupancy,
// FLOPs, shared-memory bytes and the busiest SM (the launch is scheduled over every block from each
// block's step count, which does not depend on the L2).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/gpu/address_map.h"
#include "sim/gpu/fast_kernel.h"
#include "sim/gpu/gpu_model.h"
#include "sim/gpu/set_sample.h"
#include "sim/memory/memory_level.h"

namespace iosim {

/// Groups of the sampled sets whose spread estimates the sample's error (sample_error()).
inline constexpr std::size_t kErrorGroups = 16;

/// The relative standard error of stride × Σ per_set as an estimate of the whole cache's count:
/// from kErrorGroups interpenetrating subsamples (set i in group i mod kErrorGroups, each group's
/// count taken per set, as the groups may differ by a set), or, with fewer than 2 × kErrorGroups
/// sets, the sets taken as drawn at random; 0 when the sum is 0.
[[nodiscard]] double sample_error(const std::vector<double>& per_set, std::uint32_t stride);

/// The sample's error in a few sectors counted beside a kernel's DRAM traffic (`per_set`: those of each
/// sampled set), in sectors as a share of them and of `dram_sectors`, the DRAM sectors they join in the
/// sample (reads and writes), as a kernel's writes are judged beside its reads
/// (SampledDram::relative_error()): a few sectors beside much traffic cannot force a finer sample however
/// unevenly the sets hold them. For a kernel's fabric reads, beside its DRAM traffic (naive's first GEMM
/// reads a few far lines of Q and K beside millions of S written: judged on their own they took a
/// one-head n = 65536 request to stride 2, four passes, 22 s); for the L2's dirty sectors at the end,
/// beside the last kernel's (the flush after it writes them back; the reports and the time model add
/// them to its DRAM writes). 0 when there are none.
[[nodiscard]] double share_error(const std::vector<double>& per_set, std::uint32_t stride, double dram_sectors);

/// DRAM that also counts, per set of the sampled L2, the sectors it reads and writes: how much the
/// sampled sets disagree, from which the sample's standard error follows.
class SampledDram final : public MemoryLevel {
 public:
  /// `weight`: what each sector counts in the per-set tallies (read as it is at each access; 1 when
  /// not given).
  explicit SampledDram(std::uint64_t sets, const double* weight = &kUnit) : per_set_(sets), weight_(weight) {}
  void read(std::uint64_t line, std::uint32_t mask, std::uint32_t) override { add(line, mask, 0); }
  void write(std::uint64_t line, std::uint32_t mask, std::uint32_t) override { add(line, mask, 1); }
  void reduce(std::uint64_t line, std::uint32_t mask, std::uint32_t) override {
    add(line, mask, 0);
    add(line, mask, 1);
  }
  void flush() override {}
  Bytes dirty_bytes() const override { return Bytes(0); }
  const LevelCounters& counters() const override { return counters_; }
  void reset_counters() override;
  /// The larger standard error, reads or writes, of the whole cache's counts estimated as `stride` ×
  /// the sampled sets' (sample_error()), relative to all the DRAM sectors counted, reads and writes;
  /// each sector as weighed when counted (the kernel's extrapolation's weight).
  [[nodiscard]] double relative_error(std::uint32_t stride) const;
  /// The DRAM sectors counted, reads and writes, each as weighed when counted.
  [[nodiscard]] double weighted_sectors() const;

 private:
  void add(std::uint64_t line, std::uint32_t mask, int which);

  std::vector<std::array<double, 2>> per_set_;  ///< the virtual line's set (modulo) → reads, writes, weighted
  static constexpr double kUnit = 1.0;
  const double* weight_;
  LevelCounters counters_;
};

/// What the fast replay's first pass will replay, from a Walk::runs count (microseconds): what the
/// stride is chosen from, and what sim/work_estimate.h prices.
struct FirstPass {
  std::uint32_t stride = 1;   ///< the first stride fit() tries
  /// The first stride from FastReplay::kLineBudget alone (`stride` where transfers are few): what
  /// sim/work_estimate.h prices, whose cost per sector prices the lines replayed, not the transfers.
  std::uint32_t line_stride = 1;
  double lines = 0;           ///< line requests of every kernel and head (each tile's lines, plus one)
  double heads_replayed = 1;  ///< the share of the heads expected to be replayed (skipped heads aside)
  double transfers = 0;       ///< transfers of every kernel and head (Σ Transfer::times)
  /// The line requests of the heads expected to be replayed, as the fast kernel plans them (a
  /// warm-up and a tail that each touch twice the L2, two steady periods; the tail heads, not whole
  /// periods, where heads last a wave or more and share K/V; every head where that leaves none to
  /// skip), from a period's and a head's footprint, the largest share of any kernel: what
  /// sim/work_estimate.h prices (an estimate; the stride is chosen from `heads_replayed`, as before).
  double lines_replayed = 0;
  /// The line requests a pass may replay: FastReplay::kLineBudget, or, where the replayed heads'
  /// transfers are many, FastReplay::kLinesPerTransfer a transfer (a pass handles each transfer of
  /// the heads it replays whatever its stride, so lines cheaper than that barely shorten it).
  double budget = 0;
};
[[nodiscard]] FirstPass first_pass(const Schedule& s, const ScheduleContext& ctx, const GpuModelOptions& opt);

class FastReplay {
 public:
  /// About this many line requests are replayed per pass (the first stride's target).
  static constexpr std::uint64_t kLineBudget = std::uint64_t{1} << 21;
  /// Line requests a pass may replay per transfer of the heads it replays: a transfer (its step's
  /// turn, its tile mapped, batched and charged) costs the fast replay about as much as two line
  /// requests through the L2 (the fit's passes, flash2 causal n = 131072: about 90 ns a transfer,
  /// 36–41 ns a line request; results/performance-history.md).
  static constexpr double kLinesPerTransfer = 2;
  /// The fewest sets per partition a sample keeps.
  static constexpr std::uint64_t kMinSets = 16;
  /// The sampled DRAM counts' relative standard error a pass may have; above it the replay is
  /// run again at a smaller stride (4 standard errors within 1%: the group estimate of
  /// sample_error() is itself uncertain, by about 1 / √(2 (kErrorGroups − 1)) = 18%).
  static constexpr double kMaxStandardError = 0.0025;
  /// A pass whose error is too large is run again at a stride at most this many times smaller.
  static constexpr std::uint32_t kMaxStrideStep = 8;

  FastReplay(const ScheduleContext& ctx, const GpuModelOptions& opt, std::uint32_t stride);

  /// A replay and its first (cold) pass, at the stride the budget allows, then at smaller strides
  /// until the sample's standard error is small enough (opt.sample_stride, when set, is the first).
  static std::unique_ptr<FastReplay> fit(const Schedule& s, const ScheduleContext& ctx, const GpuModelOptions& opt,
                                         Prediction& cold);

  /// Every kernel once, counting (extrapolated); with opt.follow_cold each kernel's run is kept as a
  /// trace (KernelTrace) for warm().
  Prediction pass(const std::vector<const Kernel*>& kernels);
  /// The warm run after the last pass(): the L2's dirty lines written back (kept), then every kernel
  /// again. Where a kernel's run reaches a checkpoint of the last pass's run in the same state
  /// (KernelTrace), it takes that run's counts for the rest of the kernel and its results for the
  /// kernels after: the same counts as a full replay, without replaying them (unless
  /// opt.follow_cold is false). Afterwards the L2 holds what it held at that checkpoint, not what
  /// the run leaves: the replay is spent, and pass() and warm() throw std::logic_error.
  Prediction warm(const std::vector<const Kernel*>& kernels);

  [[nodiscard]] std::uint32_t stride() const { return sample_.stride(); }
  /// The largest standard error in the last pass of: any kernel's DRAM counts, relative to its DRAM
  /// sectors; any kernel's fabric reads, relative to them and its DRAM sectors; the dirty bytes at the
  /// end, relative to them and the last kernel's DRAM sectors (share_error()).
  /// With GpuModelOptions::skip_rounds, each kernel's DRAM and fabric errors add the rounds skipped's
  /// (TraceUse::skip_dram_error, relative to the kernel's extrapolated DRAM sectors).
  [[nodiscard]] double standard_error() const { return error_; }
  /// standard_error() without the rounds skipped's: what a smaller stride would shrink (fit()).
  [[nodiscard]] double sampling_error() const { return sample_error_; }
  /// What the kernels' replays did, all passes so far.
  [[nodiscard]] const FastKernelStats& stats() const { return stats_; }

 private:
  /// Kernel i's recorded blocks (of `kernels`; a run checks they are that kernel's).
  KernelBlocks& blocks_for(std::size_t i, std::size_t kernels);

  const ScheduleContext& ctx_;
  const GpuModelOptions& opt_;
  SetSample sample_;
  SampledDram dram_;
  std::unique_ptr<MemoryLevel> l2_;
  std::vector<double> fabric_per_set_;  ///< a kernel's fabric read sectors by sampled set, weighted
  /// The weight of the block whose requests the L2 now takes, in its kernel's extrapolated counts
  /// (TraceUse::tally_weight): the per-set tallies of DRAM and fabric sectors are weighed by it.
  double weight_ = 1.0;
  AddressMap amap_;
  double error_ = 0;
  double sample_error_ = 0;  ///< sampling_error()
  FastKernelStats stats_;
  std::vector<KernelTrace> traces_;  ///< the last pass's kernels
  /// Each kernel's recorded blocks, handed from one fit pass's replay to the next's.
  std::shared_ptr<std::vector<KernelBlocks>> blocks_ = std::make_shared<std::vector<KernelBlocks>>();
  Bytes dirty_at_end_;               ///< the last pass's
  bool spent_ = false;
};

}  // namespace iosim
