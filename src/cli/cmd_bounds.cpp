// `iosim bounds`: the slopes of Theorem 2, fitted on sweeps of n and of the SRAM size.
#include "sim/slopes/sweep.h"
#include "sim/core/error.h"
#include "src/cli/app.h"
#include "src/cli/commands.h"
#include "src/report/bounds_report.h"

namespace iosim::cli {

int bounds_command(const ProblemFlags& flags, const std::string& format, std::ostream& out) {
  ProblemFlags f = flags;
  if (f.d.empty()) f.d.push_back(64);  // the sweeps' default head dimension
  // The window applies to a sweep of its own (causal, n ≥ W), not to the base problem.
  const std::optional<std::int64_t> window = f.window;
  f.window.reset();
  if (window && *window <= 0) throw InputError("--window must be a positive integer (got " + std::to_string(*window) + ")");
  const Resolved r = resolve(f, /*need_n=*/false);
  const Problem& base = r.problems.front();
  const ScheduleContext ctx{base, r.hardware, {}, 0, {}};
  if (r.passes.size() != 1) throw InputError("bounds: --pass must be fwd or bwd");
  SweepSpec spec = default_sweep(r.passes.front());
  spec.window = window ? static_cast<std::uint64_t>(*window) : 0;
  report::BoundsReport rep{r.config_file, r.hardware, base, spec.pass, sweep_slopes(ctx, spec),
                               spec.pass == Pass::fwd ? sweep_crossover(ctx, spec) : Crossover{}};
  if (format == "json") {
    out << report::render_bounds_json(rep);
  } else if (format == "csv") {
    out << report::render_bounds_csv(rep);
  } else {
    out << report::render_bounds_table(rep);
  }
  for (const SlopeCheck& c : rep.checks) {
    if (!c.within()) return kExitCheckFailed;
  }
  return kExitOk;
}

}  // namespace iosim::cli
