#include "sim/slopes/sweep.h"

#include <bit>
#include <cmath>

#include "sim/bounds/slope.h"
#include "sim/core/error.h"
#include "sim/run.h"
#include "sim/schedule/registry.h"
#include "sim/schedule/tile_choice.h"

namespace iosim {

namespace {

constexpr std::size_t kMinFitPoints = 3;
constexpr std::uint64_t kWindowFitRows = 8;  ///< the windowed n sweep is fitted from n = 8·W on

SweepPoint measure(const std::string& name, Pass pass, const ScheduleContext& ctx) {
  const ScheduleRun r = run_schedule(*make_schedule(name, pass, ctx), ctx);
  return {ctx.problem.n,
          r.m_elements,
          r.tiles,
          static_cast<double>(r.ledger.total(Level::hbm).elements().value),
          r.upper.value,
          r.variant,
          false};
}

/// Fitted over the points of the last variant (all when fewer than three), and of n ≥ `min_n` where
/// two or more are (else the last two).
SlopeCheck fit(SlopeCheck c, double tolerance, std::uint64_t min_n = 0) {
  std::size_t first = c.points.size();
  while (first > 0 && c.points[first - 1].variant == c.points.back().variant) --first;
  if (c.points.size() - first < kMinFitPoints) first = 0;
  while (first < c.points.size() && c.points[first].n < min_n) ++first;
  if (c.points.size() - first < 2) first = c.points.size() >= 2 ? c.points.size() - 2 : 0;
  std::vector<double> x, y;
  for (std::size_t i = first; i < c.points.size(); ++i) {
    SweepPoint& p = c.points[i];
    p.fitted = true;
    x.push_back(static_cast<double>(c.variable == "n" ? p.n : p.m_elements));
    y.push_back(p.count);
  }
  c.fitted = loglog_slope(x, y);
  c.tolerance = tolerance;
  return c;
}

SlopeCheck n_sweep(const std::string& name, const ScheduleContext& base, const SweepSpec& spec) {
  SlopeCheck c{name, "n", 2.0, 0, 0, "default", {}, 0};
  for (std::uint64_t n : spec.n_values) {
    ScheduleContext ctx = base;
    ctx.problem.n = ctx.problem.n_kv = n;
    ctx.tiles = {};
    c.points.push_back(measure(name, spec.pass, ctx));
  }
  return fit(std::move(c), spec.tolerance);
}

/// The n sweep under a causal window of `spec.window` keys: each row sees at most W keys, so the
/// pairs, and a tiled schedule's traffic, grow as N·W, slope 1. The first W rows see fewer (the pairs
/// are N·W − W(W − 1)/2), which bends the log-log line near n = W, so the fit starts at
/// kWindowFitRows·W, where that triangle is at most 1/16 of the pairs.
SlopeCheck windowed_n_sweep(const std::string& name, const ScheduleContext& base, const SweepSpec& spec) {
  SlopeCheck c{name, "n", 1.0, 0, 0, "default", {}, spec.window};
  for (std::uint64_t n : spec.n_values) {
    if (n < spec.window) continue;  // a window wider than n_kv is refused
    ScheduleContext ctx = base;
    ctx.problem.n = ctx.problem.n_kv = n;
    ctx.problem.causal = true;
    ctx.problem.window = spec.window;
    ctx.tiles = {};
    c.points.push_back(measure(name, spec.pass, ctx));
  }
  if (c.points.size() < 2) {
    throw InputError("bounds: --window " + std::to_string(spec.window) + " leaves fewer than two n of the sweep (n ≤ " +
                     std::to_string(spec.n_values.back()) + ")");
  }
  return fit(std::move(c), spec.tolerance, kWindowFitRows * spec.window);
}

/// flash2's backward keeps B_r × B_c tiles of dS and P in shared memory, so square tiles cannot grow
/// as M: it takes B_r = 16 and the largest B_c that fits, found by bisection on its SRAM check.
std::uint64_t largest_fitting_bc(const std::string& name, Pass pass, ScheduleContext ctx, std::uint64_t br) {
  const auto fits = [&](std::uint64_t bc) {
    ctx.tiles = {br, bc};
    try {
      (void)make_schedule(name, pass, ctx);
      return true;
    } catch (const InputError&) {
      return false;
    }
  };
  std::uint64_t lo = 0, hi = 1;
  while (fits(hi)) lo = hi, hi *= 2;
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

constexpr std::uint64_t kBackwardRows = 16;

/// `base` with M = `m` elements of SRAM per block, n = n_kv = `n`, and `name`'s M-following tile.
ScheduleContext at_m(const std::string& name, Pass pass, const ScheduleContext& base, std::uint64_t n,
                     std::uint64_t m) {
  ScheduleContext ctx = base;
  ctx.problem.n = ctx.problem.n_kv = n;
  ctx.hardware.sm.sram_per_block = Bytes(m * size_bytes(ctx.problem.dtype));
  ctx.hardware.sm.sram_per_sm = std::max(ctx.hardware.sm.sram_per_sm, ctx.hardware.sm.sram_per_block);
  ctx.tiles = {};
  if (schedule_entry(name).bounds.at_m != BoundsRole::AtM::quarter_d) return ctx;
  if (pass == Pass::bwd) {
    const std::uint64_t bc = largest_fitting_bc(name, pass, ctx, kBackwardRows);
    if (bc == 0) throw InputError("bounds: an SRAM of " + std::to_string(m) + " elements holds no " + name + " tile");
    ctx.tiles = {kBackwardRows, bc};
    return ctx;
  }
  const std::uint64_t b = m / (4 * ctx.problem.d);
  if (b == 0) throw InputError("bounds: an SRAM of " + std::to_string(m) + " elements holds no " + name + " tile");
  ctx.tiles = {b, b};
  return ctx;
}

std::string tile_policy(const std::string& name, Pass pass) {
  const BoundsRole& role = schedule_entry(name).bounds;
  if (role.at_m == BoundsRole::AtM::own_policy) return std::string(role.policy);
  if (pass == Pass::bwd) return "B_r = 16, the largest B_c that fits";
  return "B_r = B_c = ⌊M/4d⌋";
}

/// The schedules of the crossover: the one whose tiles grow as M/4d, and the small-SRAM one.
std::string quarter_d_schedule() {
  return std::string(first_schedule([](const ScheduleEntry& e) { return e.bounds.at_m == BoundsRole::AtM::quarter_d; })->name);
}
std::string small_sram_schedule() {
  return std::string(first_schedule([](const ScheduleEntry& e) { return e.bounds.small_sram; })->name);
}

SlopeCheck small_sram_slope(const Crossover& c, const SweepSpec& spec) {
  // Fitted over tiles of kMinFreeSide rows or more: below, ⌊√(M/5)⌋ moves in steps too coarse for a slope.
  SlopeCheck s{small_sram_schedule(), "M", -0.5, 0, 0, "B_r = B_c = ⌊√(M/5)⌋, d in chunks of B_c; fitted where B ≥ 16", {}, 0};
  for (const SweepPoint& p : c.dtiled) {
    if (p.tiles.br >= kMinFreeSide) s.points.push_back(p);
  }
  if (s.points.size() < 2) s.points = c.dtiled;
  return fit(std::move(s), spec.tolerance);
}

SlopeCheck m_sweep(const std::string& name, const ScheduleContext& base, const SweepSpec& spec) {
  SlopeCheck c{name, "M", -1.0, 0, 0, tile_policy(name, spec.pass), {}, 0};
  // Start at the configured M × the first factor, but not below the floor; keep the ratios.
  const auto d = static_cast<double>(base.problem.d);
  const double floor = std::max(static_cast<double>(kMinSweepDSquares) * d * d, kMinSweepRowsOfD * d);
  const double m0 = std::max(static_cast<double>(sram_elements(base.hardware, base.problem.dtype)) *
                                 spec.m_factors.front(),
                             floor) /
                    spec.m_factors.front();
  // N·d ≫ M throughout, so that the T_c-independent reads of K and V stay a small share.
  const double m_max = m0 * spec.m_factors.back();
  const std::uint64_t n = std::clamp(std::bit_ceil(static_cast<std::uint64_t>(64 * m_max / d)), spec.m_sweep_n,
                                     kMaxSweepN);
  for (double f : spec.m_factors) {
    const auto m = static_cast<std::uint64_t>(std::floor(m0 * f));
    c.points.push_back(measure(name, spec.pass, at_m(name, spec.pass, base, n, m)));
  }
  return fit(std::move(c), spec.tolerance);
}

}  // namespace

bool SlopeCheck::within() const { return std::abs(fitted - expected) <= tolerance; }

SweepSpec default_sweep(Pass pass) {
  SweepSpec s;
  s.pass = pass;
  for (int k = 13; k <= 19; ++k) s.n_values.push_back(std::uint64_t{1} << k);
  for (int k = -3; k <= 2; ++k) s.m_factors.push_back(std::ldexp(1.0, k));
  s.m_sweep_n = std::uint64_t{1} << 18;
  for (int k = -4; k <= 3; ++k) s.d2_factors.push_back(std::ldexp(1.0, k));
  s.d2_sweep_n = std::uint64_t{1} << 14;
  return s;
}

Crossover sweep_crossover(const ScheduleContext& base, const SweepSpec& spec) {
  Crossover c;
  const std::uint64_t d = base.problem.d;
  c.d_squared = d * d;
  const std::string tiled = quarter_d_schedule(), small = small_sram_schedule();
  for (double f : spec.d2_factors) {
    const auto m = static_cast<std::uint64_t>(std::floor(static_cast<double>(c.d_squared) * f));
    if (m < 4 * d) continue;  // flash2 needs a tile of at least one row: M ≥ 4d
    c.flash2.push_back(measure(tiled, Pass::fwd, at_m(tiled, Pass::fwd, base, spec.d2_sweep_n, m)));
    c.dtiled.push_back(measure(small, Pass::fwd, at_m(small, Pass::fwd, base, spec.d2_sweep_n, m)));
  }
  // The first sign change of log(flash2 / dtiled), interpolated linearly in log M.
  for (std::size_t i = 1; i < c.flash2.size(); ++i) {
    const double a = std::log(c.flash2[i - 1].count / c.dtiled[i - 1].count);
    const double b = std::log(c.flash2[i].count / c.dtiled[i].count);
    if ((a > 0) != (b > 0)) {
      const double la = std::log(static_cast<double>(c.flash2[i - 1].m_elements));
      const double lb = std::log(static_cast<double>(c.flash2[i].m_elements));
      c.m = std::exp(la + (lb - la) * a / (a - b));
      break;
    }
  }
  return c;
}

std::vector<SlopeCheck> sweep_slopes(const ScheduleContext& base, const SweepSpec& spec) {
  if (spec.n_values.size() < 2 || spec.m_factors.size() < 2) throw InputError("bounds: a sweep needs two or more points");
  std::vector<SlopeCheck> checks;
  for (const ScheduleEntry& e : schedule_catalog()) {
    if (e.bounds.n_sweep) checks.push_back(n_sweep(std::string(e.name), base, spec));
    if (e.bounds.at_m != BoundsRole::AtM::none) checks.push_back(m_sweep(std::string(e.name), base, spec));
  }
  // The tiled schedules skip the tiles outside a window; naive computes S whole under any mask.
  for (const ScheduleEntry& e : schedule_catalog()) {
    if (spec.window != 0 && e.bounds.n_sweep && e.bounds.at_m != BoundsRole::AtM::none) {
      checks.push_back(windowed_n_sweep(std::string(e.name), base, spec));
    }
  }
  if (spec.pass == Pass::fwd) {  // dtiled has no backward pass
    const Crossover c = sweep_crossover(base, spec);
    if (c.dtiled.size() < 2) throw InputError("bounds: the small-SRAM sweep needs d ≥ 16");
    checks.push_back(small_sram_slope(c, spec));
  }
  return checks;
}

}  // namespace iosim
