// `iosim --config a100.yaml --n 8192 --d 64`: count every schedule on the problem and report.
#include "sim/work_estimate.h"
#include "src/cli/app.h"
#include "src/cli/commands.h"
#include "src/report/run_report.h"

namespace iosim::cli {

int run_command(const ProblemFlags& f, const std::string& format, std::ostream& out, const Limits& limits) {
  const Resolved r = resolve(f, /*need_n=*/true);
  WorkEstimate work;  // before anything slow runs: refuse what exceeds --max-time or --max-memory
  for (const Problem& p : r.problems) {
    for (const TileRequest& t : r.tiles) {
      work.then(estimate_runs(r.schedules, r.passes, ScheduleContext{p, r.hardware, t, r.splits, r.kernel}, r.run));
    }
  }
  enforce(work, limits);
  report::RunReport rep{r.config_file, r.hardware, {}};
  for (const Problem& p : r.problems) {
    for (const TileRequest& t : r.tiles) {
      const ScheduleContext ctx{p, r.hardware, t, r.splits, r.kernel};
      rep.runs.push_back({p, t, run_schedules(r.schedules, r.passes, ctx, r.run)});
    }
  }
  if (format == "json") {
    out << report::render_json(rep);
  } else if (format == "csv") {
    out << report::render_csv(rep);
  } else {
    out << report::render_table(rep);
  }
  return kExitOk;
}

}  // namespace iosim::cli
