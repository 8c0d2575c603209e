#include "sim/timing/sm_sim.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace iosim {

namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();
constexpr std::uint32_t kSubPartitions = 4;  ///< sm_model.h's kSchedulersPerSm
/// Instructions a simulation issues at most (blocks × warps × steps × a step's): the steps are cut to
/// fit, down to kMinSteps.
constexpr double kIssueBudget = 300000;
constexpr std::uint32_t kMinSteps = 8, kMaxSteps = 32;

enum class Op : std::uint8_t { load, data_wait, barrier, ldmatrix, mma, fp32, ex2, shuffle, store, reduce, other };
enum Pipe : std::uint8_t { kTensor, kFp32, kSfu, kShfl, kPipes };

/// `a` and `b` merged, each spread evenly over the result (in the ratio of their lengths; ties to `a`).
std::vector<Op> interleave(const std::vector<Op>& a, const std::vector<Op>& b) {
  std::vector<Op> out;
  out.reserve(a.size() + b.size());
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    // Take from the one whose next element is due earlier, at its own even spacing over [0, 1).
    const double next_a = i < a.size() ? (static_cast<double>(i) + 0.5) / static_cast<double>(a.size()) : kNever;
    const double next_b = j < b.size() ? (static_cast<double>(j) + 0.5) / static_cast<double>(b.size()) : kNever;
    if (next_a <= next_b) {
      out.push_back(a[i++]);
    } else {
      out.push_back(b[j++]);
    }
  }
  return out;
}

std::vector<Op> repeat(Op op, double count) {
  return std::vector<Op>(static_cast<std::size_t>(std::max(0LL, std::llround(count))), op);
}

/// One warp's step in issue order (sm_sim.h).
std::vector<Op> program(const WarpStep& s) {
  const auto barriers = static_cast<std::size_t>(std::max(0.0, std::round(s.barriers)));
  const auto mma = static_cast<std::size_t>(std::llround(std::max(0.0, s.mma)));
  const auto ldsm = static_cast<std::size_t>(std::llround(std::max(0.0, s.ldmatrix)));
  const std::vector<Op> first = interleave(repeat(Op::ldmatrix, static_cast<double>(ldsm / 2)),
                                           repeat(Op::mma, static_cast<double>(mma / 2)));
  const std::vector<Op> second = interleave(repeat(Op::ldmatrix, static_cast<double>(ldsm - ldsm / 2)),
                                            repeat(Op::mma, static_cast<double>(mma - mma / 2)));
  const std::vector<Op> elementwise =
      interleave(interleave(repeat(Op::fp32, s.fp32), repeat(Op::ex2, s.ex2)), repeat(Op::shuffle, s.shuffle));
  std::vector<Op> core = first;
  core.insert(core.end(), elementwise.begin(), elementwise.end());
  core.insert(core.end(), second.begin(), second.end());
  for (Op op : repeat(Op::store, s.store)) core.push_back(op);
  for (Op op : repeat(Op::reduce, s.reduce)) core.push_back(op);
  // The barriers after the first, spread evenly with the last at the end.
  if (barriers > 1) {
    std::vector<Op> with;
    const std::size_t rest = barriers - 1;
    std::size_t placed = 0;
    for (std::size_t i = 0; i <= core.size(); ++i) {
      while (placed < rest && (placed + 1) * core.size() <= i * rest) {
        with.push_back(Op::barrier);
        ++placed;
      }
      if (i < core.size()) with.push_back(core[i]);
    }
    while (placed++ < rest) with.push_back(Op::barrier);
    core.swap(with);
  }
  std::vector<Op> body = repeat(Op::load, s.load);
  if (barriers > 0) {
    body.push_back(Op::barrier);
  } else if (s.memory > 0) {
    body.push_back(Op::data_wait);
  }
  body.insert(body.end(), core.begin(), core.end());
  // The other instructions through all of it, after the first barrier (the loads come first).
  const std::size_t head = body.size() - core.size();
  std::vector<Op> out(body.begin(), body.begin() + static_cast<std::ptrdiff_t>(head));
  const std::vector<Op> tail = interleave(std::vector<Op>(body.begin() + static_cast<std::ptrdiff_t>(head), body.end()),
                                          repeat(Op::other, s.other));
  out.insert(out.end(), tail.begin(), tail.end());
  return out;
}

struct Warp {
  std::uint32_t block = 0, sub = 0;
  std::size_t pc = 0;
  std::uint32_t step = 0;
  double ready = 0;
  bool waiting = false;  ///< at a barrier
  bool done = false;
  std::vector<double> loads;  ///< per step: the last load it issued
};

struct Block {
  std::uint32_t arrived = 0;
  double last_arrival = 0;
  std::vector<double> loads;        ///< per step: the last load its warps issued
  double start = 0;
};

class Sim {
 public:
  /// `subs` sub-partitions (1 or kSubPartitions).
  Sim(const WarpStep& s, std::uint32_t warps, std::uint32_t blocks, std::uint32_t subs)
      : s_(s), prog_(program(s)), warps_(warps), blocks_(blocks), subs_(subs) {
    const double per_step = static_cast<double>(prog_.size()) * warps * blocks;
    steps_ = static_cast<std::uint32_t>(std::clamp(kIssueBudget / std::max(1.0, per_step), double{kMinSteps},
                                                   double{kMaxSteps}));
    needs_.reserve(prog_.size());
    for (Op op : prog_) {
      const int pipe = pipe_of(op);
      needs_.push_back({static_cast<std::int8_t>(pipe), uses_smem(op) && s.smem_cycles > 0,
                        op == Op::reduce && s.reduce_cycles > 0, op == Op::data_wait});
    }
    const double smem_ops = std::round(s.ldmatrix) + std::round(s.load) + std::round(s.store);
    smem_per_op_ = smem_ops > 0 ? s.smem_cycles / smem_ops : 0;
    red_per_op_ = std::round(s.reduce) > 0 ? s.reduce_cycles / std::round(s.reduce) : 0;
    // Uniform phases: block b starts b / blocks of a lone warp's step after the first.
    const double lone = static_cast<double>(prog_.size()) * (1 + s.wait);
    block_.resize(blocks);
    for (std::uint32_t b = 0; b < blocks; ++b) {
      block_[b].loads.assign(steps_, 0);
      block_[b].start = lone * b / blocks;
    }
    for (std::uint32_t b = 0; b < blocks; ++b) {
      for (std::uint32_t w = 0; w < warps; ++w) {
        Warp x;
        x.block = b;
        x.sub = static_cast<std::uint32_t>(warp_.size() % subs_);
        x.ready = block_[b].start;
        x.loads.assign(steps_, 0);
        warp_.push_back(x);
      }
    }
    for (std::uint32_t p = 0; p < subs_; ++p) {
      for (std::size_t i = 0; i < warp_.size(); ++i) {
        if (warp_[i].sub == p) sub_[p].warps.push_back(i);
      }
      sub_[p].now = sub_[p].warps.empty() ? kNever : 0;
    }
  }

  double run() {
    if (prog_.empty()) return 0;  // a step of no instruction
    std::uint32_t turn = 0;  // ties go round the sub-partitions (the shared memory's arbitration)
    for (;;) {
      std::uint32_t next = turn;
      for (std::uint32_t i = turn + 1; i < turn + subs_; ++i) {
        const std::uint32_t k = i < subs_ ? i : i - subs_;
        if (sub_[k].now < sub_[next].now) next = k;
      }
      if (sub_[next].now == kNever) break;
      turn = next + 1 < subs_ ? next + 1 : 0;
      step(sub_[next]);
    }
    // The steady state's throughput: warp steps finished per cycle over the middle half of them
    // (the first quarter is the start, the last the drain as warps run out), as a block's step.
    std::sort(done_.begin(), done_.end());
    const std::size_t lo = done_.size() / 4, hi = 3 * done_.size() / 4;  // hi > lo: ≥ kMinSteps steps
    const double per_warp_step = (done_[hi] - done_[lo]) / static_cast<double>(hi - lo);
    return per_warp_step * warps_ * blocks_;
  }

 private:
  struct SubPartition {
    std::vector<std::size_t> warps;  ///< oldest first
    std::array<double, kPipes> pipe_free{};
    std::size_t last = ~std::size_t{0};
    double now = 0;
  };

  static int pipe_of(Op op) {
    switch (op) {
      case Op::mma: return kTensor;
      case Op::fp32: return kFp32;
      case Op::ex2: return kSfu;
      case Op::shuffle: return kShfl;
      default: return -1;
    }
  }
  static bool uses_smem(Op op) { return op == Op::ldmatrix || op == Op::load || op == Op::store; }

  /// The earliest time warp `w`'s next instruction can issue (kNever while it waits or is done).
  double earliest(std::size_t w) const {
    const Warp& x = warp_[w];
    if (x.done || x.waiting) return kNever;
    const Need& need = needs_[x.pc];
    double t = x.ready;
    if (need.pipe >= 0) t = std::max(t, sub_[x.sub].pipe_free[static_cast<std::size_t>(need.pipe)]);
    if (need.smem) t = std::max(t, smem_free_);
    if (need.reduce) t = std::max(t, red_free_);
    if (need.data) {
      // Without a barrier each warp waits for its own loads.
      t = std::max(t, x.step >= s_.lead ? x.loads[x.step - s_.lead] + s_.memory : block_[x.block].start + s_.memory);
    }
    return t;
  }

  double data_ready(std::uint32_t b, std::uint32_t step) const {
    const Block& k = block_[b];
    return step >= s_.lead ? k.loads[step - s_.lead] + s_.memory : k.start + s_.memory;
  }

  void step(SubPartition& p) {
    const double now = p.now;
    std::size_t pick = ~std::size_t{0};
    if (p.last != ~std::size_t{0} && earliest(p.last) <= now) {
      pick = p.last;
    } else {
      // The oldest warp that can issue now; else, in the same pass, when the first one can.
      double soonest = kNever;
      for (std::size_t w : p.warps) {
        const double t = earliest(w);
        if (t <= now) {
          pick = w;
          break;
        }
        soonest = std::min(soonest, t);
      }
      if (pick == ~std::size_t{0}) {
        p.now = soonest;
        return;
      }
    }
    if (prog_[warp_[pick].pc] == Op::data_wait) {  // not an instruction: the wait is over
      warp_[pick].ready = std::max(warp_[pick].ready, now);
      advance(pick);
      return;
    }
    p.last = pick;
    p.now = now + 1 + s_.dispatch;  // one instruction a cycle, and the cycles its dispatch loses
    issue(pick, now);
  }

  void issue(std::size_t w, double now) {
    Warp& x = warp_[w];
    Block& b = block_[x.block];
    const Op op = prog_[x.pc];
    SubPartition& p = sub_[x.sub];
    double wait = 1 + s_.dispatch + s_.wait;
    switch (op) {
      case Op::mma: p.pipe_free[kTensor] = now + s_.mma_interval; break;
      case Op::fp32: p.pipe_free[kFp32] = now + s_.fp32_interval; break;
      case Op::ex2:
        p.pipe_free[kSfu] = now + s_.ex2_interval;
        wait += s_.wait_mio;
        break;
      case Op::shuffle:
        p.pipe_free[kShfl] = now + s_.shfl_interval;
        wait += s_.wait_mio;
        break;
      case Op::ldmatrix: wait += s_.wait_mio; break;
      case Op::reduce: red_free_ = now + red_per_op_; break;
      case Op::load:
        b.loads[x.step] = std::max(b.loads[x.step], now);
        x.loads[x.step] = now;
        break;
      default: break;
    }
    if (uses_smem(op)) smem_free_ = now + smem_per_op_;
    x.ready = now + wait;
    const bool first = x.pc == 0 || prog_[x.pc - 1] == Op::load;
    if (op == Op::barrier) arrive(x, first);
    advance(w);
  }

  /// Warp `w` past its current instruction.
  void advance(std::size_t w) {
    Warp& x = warp_[w];
    if (++x.pc == prog_.size()) {
      x.pc = 0;
      // A step that ends at a barrier ends when the barrier lets its block go.
      pending_end_.push_back(w);
      if (!x.waiting) finish(w);
    }
  }

  void arrive(Warp& x, bool first) {
    Block& b = block_[x.block];
    x.waiting = true;
    b.last_arrival = std::max(b.last_arrival, x.ready);  // the barrier's issue and its wait, then its latency
    if (++b.arrived < warps_) return;
    // The first barrier's latency runs while the tiles are still on their way (the warps wait for
    // them with cp.async.wait_group before the barrier in the kernels, so this is the short side).
    double release = b.last_arrival + s_.bar_latency;
    if (first) release = std::max(release, data_ready(x.block, x.step));
    b.arrived = 0;
    b.last_arrival = 0;
    for (std::size_t i = 0; i < warp_.size(); ++i) {
      Warp& y = warp_[i];
      if (y.block != x.block) continue;
      y.waiting = false;
      y.ready = release;
      sub_[y.sub].now = std::min(sub_[y.sub].now, release);
      if (y.pc == 0 && std::find(pending_end_.begin(), pending_end_.end(), i) != pending_end_.end()) finish(i);
    }
  }

  /// Warp `w` is through its step (at its ready time).
  void finish(std::size_t w) {
    Warp& x = warp_[w];
    pending_end_.erase(std::find(pending_end_.begin(), pending_end_.end(), w));
    done_.push_back(x.ready);
    if (++x.step == steps_) x.done = true;
  }

  /// What an instruction of the program waits for besides its warp: a pipe (−1: none), the SM's shared
  /// memory, its reduction rate, the step's tiles.
  struct Need {
    std::int8_t pipe;
    bool smem, reduce, data;
  };
  const WarpStep& s_;
  std::vector<Op> prog_;
  std::vector<Need> needs_;
  std::uint32_t warps_, blocks_, subs_, steps_ = kMinSteps;
  double smem_per_op_ = 0, red_per_op_ = 0;
  double smem_free_ = 0, red_free_ = 0;
  std::vector<Block> block_;
  std::vector<Warp> warp_;
  std::vector<std::size_t> pending_end_;  ///< warps through their step's instructions, held at its last barrier
  std::vector<double> done_;              ///< when each warp step finished
  std::array<SubPartition, kSubPartitions> sub_;
};

}  // namespace

double simulate_sm(const WarpStep& s, std::uint32_t warps, std::uint32_t blocks) {
  if (warps == 0 || blocks == 0) return 0;
  // The time model asks for the same step many times (a causal kernel's blocks share their inner
  // steps, each at 1 … blocks-per-SM): the last answers are kept, per thread.
  struct Answer {
    WarpStep step;
    std::uint32_t warps, blocks;
    double cycles;
  };
  constexpr std::size_t kKept = 64;
  thread_local std::vector<Answer> kept;
  thread_local std::size_t next = 0;
  for (const Answer& a : kept) {
    if (a.warps == warps && a.blocks == blocks && a.step == s) return a.cycles;
  }
  // All four sub-partitions, though a block of 4k warps puts k on each: simulating one of them with a
  // quarter of the SM's shared memory is 4× faster but loses the skew between a block's warps on
  // different sub-partitions that their contention for the shared memory makes (3.6% faster at
  // 128 × 64, 4 warps, 2 stages, (1, 16, 8192, 64): further from the H200's time).
  const double cycles = Sim(s, warps, blocks, kSubPartitions).run();
  if (kept.size() < kKept) {
    kept.push_back({s, warps, blocks, cycles});
  } else {
    kept[next++ % kKept] = {s, warps, blocks, cycles};
  }
  return cycles;
}

}  // namespace iosim
