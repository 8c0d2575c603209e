// `iosim --config a100.yaml --n 8192 --d 64`: count every schedule on the problem and report.
#include <memory>

#include "sim/core/error.h"
#include "sim/timing/compiled_launch.h"
#include "sim/work_estimate.h"
#include "src/cli/app.h"
#include "src/cli/commands.h"
#include "src/cli/triton_records.h"
#include "src/config/validated_error.h"
#include "src/report/run_report.h"

namespace iosim::cli {

namespace {

/// With --kernels triton and --predict: each context's compiled records, at the tiles, warps and stages
/// flash2 takes there in each pass (the forward's kernel, the backward's three), all compiled in one
/// process. Any that did not compile or cannot launch is an error naming it: nothing is priced from the
/// fitted family instead.
void attach_triton_records(std::vector<ScheduleContext>& contexts, const Resolved& r) {
  if (r.kernel.source != KernelSource::triton || !r.run.predict) return;
  std::vector<TritonConfig> configs;
  std::vector<std::pair<std::size_t, Pass>> owner;  // the context and pass of each config
  for (std::size_t i = 0; i < contexts.size(); ++i) {
    const ScheduleContext& ctx = contexts[i];
    for (const Pass pass : r.passes) {
      const std::unique_ptr<Schedule> s = make_schedule(r.schedules.front(), pass, ctx);
      const KernelRequest k = s->kernel_config();
      const TritonConfig c{s->tiles().br, s->tiles().bc, ctx.problem.d, ctx.problem.causal, k.warps, k.stages,
                           ctx.problem.dtype};
      for (const TritonConfig& one : triton_pass_configs(pass, c)) {
        configs.push_back(one);
        owner.emplace_back(i, pass);
      }
    }
  }
  const auto records = triton_records(configs);
  for (std::size_t i = 0; i < records.size(); ++i) {
    const CompiledKernel& k = *records[i];
    if (const std::string why = compiled_launch_refusal(k, r.hardware.sm); !why.empty()) {
      throw InputError("--kernels triton: " + k.config + ": " + why);
    }
    KernelRequest& into = contexts[owner[i].first].kernel;
    if (owner[i].second == Pass::fwd) {
      into.compiled = records[i];
    } else {
      into.compiled_set.push_back(records[i]);
    }
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
  report::RunReport rep{r.config_file, r.hardware, {}, {}};
  if (r.run.predict) rep.validated = config::load_validated_errors(r.config_file);
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
