#include "sim/bounds/sweep.h"

#include <cmath>

#include "sim/bounds/slope.h"
#include "sim/core/error.h"
#include "sim/run.h"

namespace iosim {

namespace {

constexpr std::size_t kMinFitPoints = 3;

SweepPoint measure(const std::string& name, const ScheduleContext& ctx) {
  const ScheduleRun r = run_schedule(*make_schedule(name, Pass::fwd, ctx), ctx);
  return {ctx.problem.n,
          r.m_elements,
          r.tiles,
          static_cast<double>(r.ledger.total(Level::hbm).elements().value),
          r.upper.value,
          r.variant,
          false};
}

SlopeCheck fit(SlopeCheck c, double tolerance) {
  std::size_t first = c.points.size();
  while (first > 0 && c.points[first - 1].variant == c.points.back().variant) --first;
  if (c.points.size() - first < kMinFitPoints) first = 0;
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
  SlopeCheck c{name, "n", 2.0, 0, 0, "default", {}};
  for (std::uint64_t n : spec.n_values) {
    ScheduleContext ctx = base;
    ctx.problem.n = ctx.problem.n_kv = n;
    ctx.tiles = {};
    c.points.push_back(measure(name, ctx));
  }
  return fit(std::move(c), spec.tolerance);
}

SlopeCheck m_sweep(const std::string& name, const ScheduleContext& base, const SweepSpec& spec) {
  SlopeCheck c{name, "M", -1.0, 0, 0, "", {}};
  c.tile_policy = name == "flash1" ? "paper default B_c = ⌈M/4d⌉, B_r = min(B_c, d)" : "B_r = B_c = ⌊M/4d⌋";
  for (double f : spec.m_factors) {
    ScheduleContext ctx = base;
    ctx.problem.n = ctx.problem.n_kv = spec.m_sweep_n;
    const double sram = std::floor(static_cast<double>(base.hardware.sm.sram_per_block.value) * f);
    ctx.hardware.sm.sram_per_block = Bytes(static_cast<std::uint64_t>(sram));
    ctx.hardware.sm.sram_per_sm = std::max(ctx.hardware.sm.sram_per_sm, ctx.hardware.sm.sram_per_block);
    ctx.tiles = {};
    if (name == "flash2") {
      const std::uint64_t b = sram_elements(ctx.hardware, ctx.problem.dtype) / (4 * ctx.problem.d);
      if (b == 0) throw InputError("bounds: SRAM scaled by " + std::to_string(f) + " holds no tile");
      ctx.tiles = {b, b};
    }
    c.points.push_back(measure(name, ctx));
  }
  return fit(std::move(c), spec.tolerance);
}

}  // namespace

bool SlopeCheck::within() const { return std::abs(fitted - expected) <= tolerance; }

SweepSpec default_sweep() {
  SweepSpec s;
  for (int k = 13; k <= 19; ++k) s.n_values.push_back(std::uint64_t{1} << k);
  for (int k = -3; k <= 2; ++k) s.m_factors.push_back(std::ldexp(1.0, k));
  s.m_sweep_n = std::uint64_t{1} << 18;
  return s;
}

std::vector<SlopeCheck> sweep_slopes(const ScheduleContext& base, const SweepSpec& spec) {
  if (spec.n_values.size() < 2 || spec.m_factors.size() < 2) throw InputError("bounds: a sweep needs two or more points");
  return {n_sweep("naive", base, spec), n_sweep("flash1", base, spec), m_sweep("flash1", base, spec),
          n_sweep("flash2", base, spec), m_sweep("flash2", base, spec)};
}

}  // namespace iosim
