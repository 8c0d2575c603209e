#include "sim/run.h"

#include <tuple>

#include "sim/core/error.h"

namespace iosim {

namespace {
double ratio_to(const Ledger& l, const BoundValue& b) {
  const auto count = static_cast<double>(l.total(Level::hbm).elements().value);
  return b.value > 0 ? count / b.value : 0.0;
}
}  // namespace

double ScheduleRun::upper_ratio() const { return ratio_to(ledger, upper); }
double ScheduleRun::lower_ratio() const { return ratio_to(ledger, lower); }

ScheduleRun run_schedule(const Schedule& s, const ScheduleContext& ctx, const RunOptions& opt) {
  ScheduleRun r;
  r.name = std::string(s.name());
  r.pass = s.pass();
  r.tiles = s.tiles();
  r.tile_source = s.tile_source();
  r.sram = s.sram();
  r.sram_limit = ctx.hardware.sm.sram_per_block;
  r.m_elements = sram_elements(ctx.hardware, ctx.problem.dtype);
  r.ledger = Ledger(ctx.problem.dtype);
  s.emit(Emitter(r.ledger, Walk::runs));
  r.upper = upper_bound(s.bound(), ctx.problem, r.m_elements);
  r.lower = lower_bound(ctx.problem, r.m_elements, s.pass() == Pass::bwd);
  r.notes = s.notes();
  r.variant = s.variant();
  r.kernel = s.kernel_config();
  r.kernel.source = ctx.kernel.source;  // whose kernels: the request's, whatever the schedule chose
  if (opt.predict) {
    GpuModelOptions g = opt.gpu;
    PredictedRun p;
    if (g.l2 == L2Mode::exact || g.observer != nullptr || ctx.problem.paged()) {
      // The exact replay, run twice, with the cold run's per-wave L2 statistics (sim/gpu/wave_stats.h).
      g.warm = false;
      WaveStats waves;
      g.observer = &waves;
      p.cold = predict(s, ctx, g);
      p.cold_waves = waves.kernels();
      g.observer = opt.gpu.observer;
      g.warm = true;
      p.warm = predict(s, ctx, g);
    } else {
      // The fast replay (the default): one filling pass serves both runs; no per-wave statistics.
      ColdWarm both = predict_cold_warm(s, ctx, g);
      p.cold = std::move(both.cold);
      p.warm = std::move(both.warm);
    }
    std::tie(p.cold_time, p.warm_time) = predict_times(s, ctx, p.cold, p.warm, ctx.hardware);
    HardwareSpec datasheet = ctx.hardware;
    datasheet.measured = {};
    p.cold_bound = predict_roofline(p.cold, datasheet, ctx.problem.dtype);
    r.predicted = std::move(p);
  }
  if (opt.execute) r.execution = execute(s, ctx.problem, *opt.execute);
  return r;
}

std::vector<ScheduleRun> run_schedules(const std::vector<std::string>& names, const std::vector<Pass>& passes,
                                       const ScheduleContext& ctx, const RunOptions& opt) {
  if (const std::string err = check(ctx.problem); !err.empty()) throw InputError(err);
  if (opt.execute) {
    for (const std::string& name : names) {
      for (Pass pass : passes) check_execution(name, pass, ctx.problem, *opt.execute);
    }
  }
  std::vector<ScheduleRun> out;
  for (const std::string& name : names) {
    for (Pass pass : passes) out.push_back(run_schedule(*make_schedule(name, pass, ctx), ctx, opt));
  }
  return out;
}

}  // namespace iosim
