// Lab for the long-context issue's analytic L2: the exact replay's request stream (the same blocks,
// slots, steps and lines as gpu_model.cpp's KernelRun, x-major, cold, LRU) counted three ways, each in
// a pass of its own so that each is timed alone:
//   exact     the stream through PartitionedL2 / L2Cache and Dram: the reference (`--l2 exact`);
//   binomial  per request, D = distinct lines the request's partition saw since this line's last touch
//             there (a Fenwick tree over touch times), and P(hit) = P(Binomial(D, 1/sets) < ways), summed;
//             a far request (line homed in the other partition) is a DRAM read when both miss, taken
//             as independent; the home partition is touched by it with probability P(near miss);
//   capacity  the same distances, each partition taken as fully associative: a hit iff D < sets × ways
//             (the set hash spreads contiguous lines evenly, so a set's share of D is D ÷ sets, not
//             binomial);
//   stack     per partition and set, the stack of the last kStack distinct lines touched: a request
//             hits when its line's depth is under `ways` (true LRU on the model's hashed sets).
// Requests are weighted by their sectors. K/V loads' distances (binomial pass) are sampled, by K/V
// tile column, to show their distribution and whether it is stationary along the columns.
// Not a test: a prototype for deciding the model (results/l2-analytic-2026-12-07.md). Run as
//   l2_analytic CONFIG N D HEADS KV_HEADS CAUSAL(0|1) [check | window [W TOL]]
// where `check` also runs predict() with --l2 exact and compares its DRAM reads with this stream's, and
// `window` runs, instead of the distance passes, the design's part 2 (l2_analytic_window.h: rounds
// skipped once stationary, re-warmed, extrapolated) beside exact, every DRAM counter
// (results/l2-analytic-part2-2026-12-07.md).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "bench/l2_analytic_stream.h"
#include "bench/l2_analytic_window.h"
#include "bench/lab_args.h"
#include "sim/core/emitter.h"
#include "sim/gpu/address_map.h"
#include "sim/gpu/block_recorder.h"
#include "sim/gpu/gpu_model.h"
#include "sim/gpu/occupancy.h"
#include "sim/gpu/request_batch.h"
#include "sim/memory/dram.h"
#include "sim/memory/l2_cache.h"
#include "sim/memory/partitioned_l2.h"
#include "sim/schedule/registry.h"
#include "src/config/hardware_config.h"

namespace {

using namespace iosim;

using lab::each_request;
using lab::Req;

/// P(Binomial(D, 1/sets) < ways) for D = 0, 1, …, until it is under 1e-12 (0 beyond the table).
std::vector<double> hit_table(std::uint64_t sets, std::uint32_t ways) {
  std::vector<double> t;
  const double p = 1.0 / static_cast<double>(sets), lq = std::log1p(-p), lp = std::log(p);
  for (std::uint64_t d = 0;; ++d) {
    double s = 0;
    const double dd = static_cast<double>(d);
    for (std::uint32_t k = 0; k < ways && k <= d; ++k) {
      const double kk = k;
      s += std::exp(std::lgamma(dd + 1) - std::lgamma(kk + 1) - std::lgamma(dd - kk + 1) + kk * lp + (dd - kk) * lq);
    }
    t.push_back(std::min(1.0, s));
    if (s < 1e-12 && d > std::uint64_t{ways} * sets) return t;
  }
}

/// Distinct lines touched since a line's last touch, for one touch stream: a Fenwick tree over touch
/// times holding 1 at each line's latest time. Lines further back than `horizon` distinct lines are
/// forgotten at compaction (reported as never touched: the binomial's P(hit) is 0 there anyway).
class ReuseDistance {
 public:
  static constexpr std::uint64_t kNever = ~std::uint64_t{0};
  explicit ReuseDistance(std::uint64_t horizon) : horizon_(horizon) {
    cap_ = 1;
    while (cap_ < 4 * horizon + 1024) cap_ *= 2;
    tree_.assign(cap_ + 1, 0);
  }
  /// Touches `line`; returns the distinct lines touched since its previous touch, or kNever.
  std::uint64_t touch(std::uint64_t line) {
    if (now_ == cap_) compact();
    std::uint64_t d = kNever;
    auto [it, fresh] = last_.try_emplace(line, now_);
    if (!fresh) {
      const std::uint64_t t = it->second;
      d = static_cast<std::uint64_t>(prefix(now_) - prefix(t + 1));
      add(t, -1);
      it->second = now_;
    }
    add(now_, 1);
    ++now_;
    return d;
  }

 private:
  void add(std::uint64_t t, int v) {
    for (std::uint64_t i = t + 1; i <= cap_; i += i & (~i + 1)) tree_[i] += v;
  }
  /// Ones at times [0, t).
  [[nodiscard]] std::int64_t prefix(std::uint64_t t) const {
    std::int64_t s = 0;
    for (std::uint64_t i = t; i > 0; i -= i & (~i + 1)) s += tree_[i];
    return s;
  }
  void compact() {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> live;  // (time, line)
    live.reserve(last_.size());
    for (const auto& [line, t] : last_) live.emplace_back(t, line);
    std::sort(live.begin(), live.end());
    const std::size_t keep = std::min<std::size_t>(live.size(), horizon_ + 1);
    last_.clear();
    std::fill(tree_.begin(), tree_.end(), 0);
    now_ = 0;
    for (std::size_t i = live.size() - keep; i < live.size(); ++i) {
      last_.emplace(live[i].second, now_);
      add(now_, 1);
      ++now_;
    }
  }

  std::uint64_t horizon_;
  std::uint64_t cap_ = 0;
  std::uint64_t now_ = 0;
  std::vector<std::int32_t> tree_;
  std::unordered_map<std::uint64_t, std::uint64_t> last_;
};

/// Per set, the last kStack distinct lines touched, newest first: a line's depth there is its
/// per-set stack distance (kStack when deeper or never touched).
class SetStacks {
 public:
  static constexpr std::uint32_t kStack = 64;
  explicit SetStacks(std::uint64_t sets) : sets_(sets), lines_(sets * kStack, ~std::uint64_t{0}) {}
  std::uint32_t touch(std::uint64_t line) {
    std::uint64_t* s = &lines_[L2Cache::hashed_set(line, sets_) * kStack];
    std::uint32_t d = 0;
    while (d < kStack && s[d] != line) ++d;
    for (std::uint32_t i = std::min(d, kStack - 1); i > 0; --i) s[i] = s[i - 1];
    s[0] = line;
    return d;
  }

 private:
  std::uint64_t sets_;
  std::vector<std::uint64_t> lines_;
};

/// A uniform number in [0, 1) from `i` (splitmix64): the binomial pass's coin for far touches.
double coin(std::uint64_t i) {
  std::uint64_t z = i + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

struct Counts {
  double dram_read_sectors = 0;
  double dram_write_sectors = 0;
  double fabric_read_sectors = 0;
  double near_hit_read_sectors = 0;
  double seconds = 0;
};

double quantile(std::vector<std::uint64_t>& v, double q) {
  if (v.empty()) return NAN;
  const auto k = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  const std::uint64_t x = v[k];
  return x == ReuseDistance::kNever ? INFINITY : static_cast<double>(x);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc >= 8 ? argv[7] : "";
  const bool check = mode == "check", window = mode == "window";
  if (argc < 7 || (argc > 7 && !check && !window) || (check && argc != 8) || (window && argc != 8 && argc != 10)) {
    std::fprintf(stderr, "usage: %s CONFIG N D HEADS KV_HEADS CAUSAL [check | window [W TOL]]\n", argv[0]);
    return 2;
  }
  lab::WindowOptions wo;
  if (window && argc == 10) {
    wo.window = std::strtoull(argv[8], nullptr, 10);
    wo.tol = std::strtod(argv[9], nullptr);
    if (wo.window == 0 || !(wo.tol >= 0)) {
      std::fprintf(stderr, "window: W must be positive and TOL not negative\n");
      return 2;
    }
  }
  const Problem p = lab::problem_from(argv + 2);
  const ScheduleContext ctx{p, config::load_hardware(argv[1]), {}, 0, {}};
  const auto s = make_schedule("flash2", Pass::fwd, ctx);
  const std::vector<const Kernel*> kernels = s->kernels();
  const L2Spec& spec = ctx.hardware.l2;
  const AddressMap amap(p, spec.line_bytes, spec.sector_bytes);
  const std::uint32_t parts = spec.partitions == 2 ? 2 : 1;
  L2Spec part_spec = spec;
  part_spec.capacity = Bytes(spec.capacity.value / parts);
  const std::uint64_t sets = L2Cache::sets_of(part_spec);
  const std::uint32_t ways = spec.ways;
  const std::uint64_t lines = sets * ways;  // a partition's lines
  const auto home = [&](std::uint64_t line, std::uint32_t near) { return parts == 2 ? PartitionedL2::home(line) : near; };
  std::printf("config %s n %s d %s heads %s/%s causal %d: %u partition(s) of %llu sets x %u ways\n", argv[1], argv[2],
              argv[3], argv[4], argv[5], p.causal ? 1 : 0, parts, static_cast<unsigned long long>(sets), ways);

  // Pass 0: the stream alone (what generating it costs).
  std::uint64_t requests = 0, read_sectors = 0;
  double t0 = lab::cpu_seconds();
  each_request(kernels, ctx, amap, [&](const Req& q) {
    ++requests;
    if (q.r == Request::read) read_sectors += sector_count(q.mask);
  });
  const double stream_s = lab::cpu_seconds() - t0;

  // The exact replay's L2 (LRU, one or two partitions as the config has) over `dram`.
  const auto exact_l2 = [&](Dram& dram) -> std::unique_ptr<MemoryLevel> {
    if (parts == 2) return std::make_unique<PartitionedL2>(spec, [] { return make_replacement("lru"); }, dram);
    return std::make_unique<L2Cache>(spec, make_replacement("lru"), dram);
  };

  // Pass 1: exact.
  Counts exact;
  {
    Dram dram(spec.sector_bytes);
    const std::unique_ptr<MemoryLevel> l2 = exact_l2(dram);
    t0 = lab::cpu_seconds();
    each_request(kernels, ctx, amap, [&](const Req& q) { l2->request(q.r, q.line, q.mask, q.sm); });
    l2->flush();
    exact.seconds = lab::cpu_seconds() - t0;
    exact.dram_write_sectors = static_cast<double>(dram.counters().write_sectors);
    exact.fabric_read_sectors = static_cast<double>(l2->counters().fabric_read_sectors);
    exact.dram_read_sectors = static_cast<double>(dram.counters().read_sectors);
    exact.near_hit_read_sectors = static_cast<double>(l2->counters().read_sectors - l2->counters().read_miss_sectors);
  }

  if (window) {
    // The tile mode's sectors (what skipped rounds are counted by) against the lines': equal or the
    // pass's extrapolation is off by construction.
    std::array<std::uint64_t, 2> by_lines{}, by_tiles{};
    each_request(kernels, ctx, amap, [&](const Req& q) { by_lines[q.r == Request::read ? 0 : 1] += q.sectors; });
    {
      lab::Stream st(kernels, ctx, amap);
      while (st.round(false, [&](const Req& q) { by_tiles[q.r == Request::read ? 0 : 1] += q.sectors; })) {
      }
    }
    if (by_lines != by_tiles) {
      std::fprintf(stderr, "tile sectors %llu/%llu differ from line sectors %llu/%llu (read/store)\n",
                   static_cast<unsigned long long>(by_tiles[0]), static_cast<unsigned long long>(by_tiles[1]),
                   static_cast<unsigned long long>(by_lines[0]), static_cast<unsigned long long>(by_lines[1]));
      return 1;
    }
    Dram dram(spec.sector_bytes);
    const std::unique_ptr<MemoryLevel> l2 = exact_l2(dram);
    t0 = lab::cpu_seconds();
    lab::Stream st(kernels, ctx, amap);
    const lab::WindowCounts w = lab::window_pass(st, *l2, dram, spec.capacity.value / spec.sector_bytes, wo);
    const double window_s = lab::cpu_seconds() - t0;
    const auto err = [](double a, double b) { return b == 0 ? (a == 0 ? 0.0 : INFINITY) : 100 * (a / b - 1); };
    const double all_exact = exact.dram_read_sectors + exact.dram_write_sectors;
    const double all_window = w.dram_read_sectors + w.dram_write_sectors;
    std::printf("stream    requests %llu  read_sectors %llu  cpu_s %.2f\n", static_cast<unsigned long long>(requests),
                static_cast<unsigned long long>(read_sectors), stream_s);
    std::printf("exact     dram_read %.0f  dram_write %.0f  fabric_read %.0f  cpu_s %.2f\n", exact.dram_read_sectors,
                exact.dram_write_sectors, exact.fabric_read_sectors, exact.seconds);
    std::printf("window    dram_read %.0f (%+.3f%%)  dram_write %.0f (%+.3f%%)  dram_all %+.3f%%  fabric_read %.0f "
                "(%+.3f%%)  cpu_s %.2f\n",
                w.dram_read_sectors, err(w.dram_read_sectors, exact.dram_read_sectors), w.dram_write_sectors,
                err(w.dram_write_sectors, exact.dram_write_sectors), err(all_window, all_exact),
                w.fabric_read_sectors, err(w.fabric_read_sectors, exact.fabric_read_sectors), window_s);
    std::printf("mean      dram_read %.0f (%+.3f%%)  dram_all %+.3f%%  fabric_read %.0f (%+.3f%%)\n",
                w.dram_read_sectors_mean, err(w.dram_read_sectors_mean, exact.dram_read_sectors),
                err(w.dram_read_sectors_mean + w.dram_write_sectors, all_exact), w.fabric_read_sectors_mean,
                err(w.fabric_read_sectors_mean, exact.fabric_read_sectors));
    std::printf("rounds    counted %llu  rewarm %llu  skipped %llu  skips %llu  (W %llu tol %g)\n",
                static_cast<unsigned long long>(w.rounds_counted), static_cast<unsigned long long>(w.rounds_rewarm),
                static_cast<unsigned long long>(w.rounds_skipped), static_cast<unsigned long long>(w.skips),
                static_cast<unsigned long long>(wo.window), wo.tol);
    return 0;
  }

  // Passes 2 and 3: the binomial and the capacity model over distinct-line reuse distances, each with
  // its own touch streams (a far partition is touched only by the near misses of its own model).
  const std::uint32_t columns_shown = 8;
  std::uint64_t kv_columns = 1;
  each_request(kernels, ctx, amap, [&](const Req& q) {
    if (q.tensor == Tensor::K || q.tensor == Tensor::V) kv_columns = std::max(kv_columns, q.column + 1);
  });
  std::vector<std::vector<std::uint64_t>> kv_d(columns_shown);
  // Near misses by D ÷ (a partition's lines), all reads: the per-set stack's (= exact's) and the
  // binomial's, side by side (the sampled pass runs a SetStacks copy of pass 4 alongside).
  const std::array<double, 11> edges{1.0 / 64, 1.0 / 16, 0.25, 0.5, 0.75, 0.9, 1.0, 1.1, 1.25, 1.5, 2.0};
  struct Bucket {
    double sectors = 0, stack_miss = 0, binom_miss = 0;
  };
  std::array<Bucket, edges.size() + 2> by_d{};  // the last: never touched (or beyond the horizon)
  std::vector<SetStacks> joint;
  for (std::uint32_t i = 0; i < parts; ++i) joint.emplace_back(sets);
  const auto by_distance = [&](const std::vector<double>& table, bool sample) {
    Counts c;
    const std::uint64_t horizon = table.size();
    std::vector<ReuseDistance> rd;
    for (std::uint32_t i = 0; i < parts; ++i) rd.emplace_back(horizon);
    const auto ph = [&](std::uint64_t d) { return d < table.size() ? table[d] : 0.0; };
    std::uint64_t i = 0, kv_reads = 0;
    t0 = lab::cpu_seconds();
    each_request(kernels, ctx, amap, [&](const Req& q) {
      const std::uint32_t near = q.sm % parts, h = home(q.line, near);
      const double sectors = static_cast<double>(sector_count(q.mask));
      if (q.r != Request::read) {  // stores allocate in the line's home
        (void)rd[h].touch(q.line);
        if (sample) (void)joint[h].touch(q.line);
        return;
      }
      const std::uint64_t d = rd[near].touch(q.line);
      if (sample) {
        const std::uint32_t sd = joint[near].touch(q.line);
        const bool stack_miss = sd >= ways;
        if (stack_miss && h != near) (void)joint[h].touch(q.line);
        std::size_t b = by_d.size() - 1;
        if (d != ReuseDistance::kNever) {
          b = 0;
          while (b < edges.size() && static_cast<double>(d) >= edges[b] * static_cast<double>(lines)) ++b;
        }
        by_d[b].sectors += sectors;
        by_d[b].stack_miss += stack_miss ? sectors : 0;
        by_d[b].binom_miss += sectors * (1 - ph(d));
      }
      if (sample && (q.tensor == Tensor::K || q.tensor == Tensor::V) && (kv_reads++ % 16) == 0) {
        kv_d[std::min<std::uint64_t>(q.column * columns_shown / kv_columns, columns_shown - 1)].push_back(d);
      }
      const double pn = ph(d);
      c.near_hit_read_sectors += sectors * pn;
      double miss = 1 - pn;
      // A near miss of a line homed in the other partition asks there: with probability 1 − P(near hit).
      if (h != near && coin(i++) < miss) miss *= 1 - ph(rd[h].touch(q.line));
      c.dram_read_sectors += sectors * miss;
    });
    c.seconds = lab::cpu_seconds() - t0;
    return c;
  };
  const Counts binom = by_distance(hit_table(sets, ways), true);
  const Counts capacity = by_distance(std::vector<double>(lines, 1.0), false);

  // Pass 4: per-set stack distances (deterministic, the exact partition logic).
  Counts stack;
  std::array<std::uint64_t, SetStacks::kStack + 1> kv_depth{};
  {
    std::vector<SetStacks> st;
    for (std::uint32_t i = 0; i < parts; ++i) st.emplace_back(sets);
    t0 = lab::cpu_seconds();
    each_request(kernels, ctx, amap, [&](const Req& q) {
      const std::uint32_t near = q.sm % parts, h = home(q.line, near);
      const std::uint64_t sectors = sector_count(q.mask);
      if (q.r != Request::read) {
        (void)st[h].touch(q.line);
        return;
      }
      const std::uint32_t d = st[near].touch(q.line);
      if (q.tensor == Tensor::K || q.tensor == Tensor::V) ++kv_depth[d];
      if (d < ways) {
        stack.near_hit_read_sectors += static_cast<double>(sectors);
      } else if (h == near || st[h].touch(q.line) >= ways) {
        stack.dram_read_sectors += static_cast<double>(sectors);
      }
    });
    stack.seconds = lab::cpu_seconds() - t0;
  }

  const auto row = [&](const char* what, const Counts& c) {
    std::printf("%-9s dram_read_sectors %14.0f  err %+8.3f%%  near_hit_sectors %14.0f  err %+8.3f%%  cpu_s %8.2f\n", what,
                c.dram_read_sectors, 100 * (c.dram_read_sectors / exact.dram_read_sectors - 1), c.near_hit_read_sectors,
                100 * (c.near_hit_read_sectors / exact.near_hit_read_sectors - 1), c.seconds);
  };
  std::printf("stream    requests %llu  read_sectors %llu  cpu_s %.2f\n", static_cast<unsigned long long>(requests),
              static_cast<unsigned long long>(read_sectors), stream_s);
  row("exact", exact);
  row("binomial", binom);
  row("capacity", capacity);
  row("stack", stack);
  std::printf("K/V read distances (distinct lines in the near partition since the last touch; every 16th read), "
              "by K/V column eighth of %llu columns; sets x ways = %llu\n",
              static_cast<unsigned long long>(kv_columns), static_cast<unsigned long long>(sets * ways));
  std::printf("  cols      samples    never%%     q10      q25      q50      q75      q90      q99\n");
  for (std::uint32_t c = 0; c < columns_shown; ++c) {
    auto& v = kv_d[c];
    const double never = v.empty() ? 0 : 100.0 * static_cast<double>(std::count(v.begin(), v.end(), ReuseDistance::kNever)) / static_cast<double>(v.size());
    std::printf("  %u/8 %12zu %8.2f", c + 1, v.size(), never);
    for (double q : {0.10, 0.25, 0.50, 0.75, 0.90, 0.99}) std::printf(" %8.0f", quantile(v, q));
    std::printf("\n");
  }
  std::printf("near misses by D / lines (all reads): bucket, read sectors, stack (exact) miss %%, binomial miss %%\n");
  for (std::size_t b = 0; b < by_d.size(); ++b) {
    const Bucket& k = by_d[b];
    if (k.sectors == 0) continue;
    if (b + 1 == by_d.size()) {
      std::printf("  never       ");
    } else {
      std::printf("  [%5.3f,%5.3f)", b == 0 ? 0.0 : edges[b - 1], b < edges.size() ? edges[b] : INFINITY);
    }
    std::printf(" %14.0f %8.3f %8.3f\n", k.sectors, 100 * k.stack_miss / k.sectors, 100 * k.binom_miss / k.sectors);
  }
  std::printf("K/V read per-set stack depth (near partition): ");
  std::uint64_t kv_total = 0;
  for (auto x : kv_depth) kv_total += x;
  for (std::uint32_t d : {0u, 1u, 2u, 4u, 8u, 12u, 15u, 16u, 20u, 32u, 63u}) {
    std::uint64_t below = 0;
    for (std::uint32_t j = 0; j <= d; ++j) below += kv_depth[j];
    std::printf("<=%u %.4f  ", d, static_cast<double>(below) / static_cast<double>(kv_total));
  }
  std::printf("\n");
  if (check) {
    GpuModelOptions o;
    o.l2 = L2Mode::exact;
    t0 = lab::cpu_seconds();
    const Prediction pr = predict(*s, ctx, o);
    std::printf("check: predict(--l2 exact) dram_read_sectors %llu (this stream's exact pass %.0f) cpu_s %.2f\n",
                static_cast<unsigned long long>(pr.dram_read().value / spec.sector_bytes), exact.dram_read_sectors,
                lab::cpu_seconds() - t0);
  }
  return 0;
}
