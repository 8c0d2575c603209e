// `iosim --config a100.yaml --n 8192 --d 64`: count every schedule on the problem and report.
#include <memory>

#include "sim/core/error.h"
#include "sim/timing/compiled_launch.h"
#include "sim/work_estimate.h"
#include "src/cli/app.h"
#include "src/cli/commands.h"
#include "src/cli/triton_records.h"
#include "src/report/run_report.h"

namespace iosim::cli {

namespace {

/// With --kernels triton and --predict: each context's compiled record, at the tiles, warps and stages
/// flash2's forward takes there, all compiled in one process. Any that did not compile or cannot launch
/// is an error naming it: nothing is priced from the fitted family instead.
void attach_triton_records(std::vector<ScheduleContext>& contexts, const Resolved& r) {
  if (r.kernel.source != KernelSource::triton || !r.run.predict) return;
  std::vector<TritonConfig> configs;
  for (const ScheduleContext& ctx : contexts) {
    const std::unique_ptr<Schedule> s = make_schedule(r.schedules.front(), Pass::fwd, ctx);
    const KernelRequest k = s->kernel_config();
    configs.push_back({s->tiles().br, s->tiles().bc, ctx.problem.d, ctx.problem.causal, k.warps, k.stages,
                       ctx.problem.dtype});
  }
  const auto records = triton_records(configs);
  for (std::size_t i = 0; i < contexts.size(); ++i) {
    const CompiledKernel& k = *records[i];
    if (const std::string why = compiled_launch_refusal(k, r.hardware.sm); !why.empty()) {
      throw InputError("--kernels triton: " + k.config + ": " + why);
    }
    contexts[i].kernel.compiled = records[i];
  }
}

}  // namespace

int run_command(const ProblemFlags& f, const std::string& format, std::ostream& out, const Limits& limits) {
  const Resolved r = resolve(f, /*need_n=*/true);
  WorkEstimate work;  // before anything slow runs: refuse what exceeds --max-time or --max-memory
  for (const Problem& p : r.problems) {
    for (const TileRequest& t : r.tiles) {
      work.then(estimate_runs(r.schedules, r.passes, ScheduleContext{p, r.hardware, t, r.splits, r.kernel}, r.run));
    }
  }
  enforce(work, limits);
  std::vector<ScheduleContext> contexts;
  for (const Problem& p : r.problems) {
    for (const TileRequest& t : r.tiles) contexts.push_back({p, r.hardware, t, r.splits, r.kernel});
  }
  attach_triton_records(contexts, r);
  report::RunReport rep{r.config_file, r.hardware, {}};
  for (const ScheduleContext& ctx : contexts) {
    rep.runs.push_back({ctx.problem, ctx.tiles, run_schedules(r.schedules, r.passes, ctx, r.run)});
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
