// `iosim tiles --config h200.yaml --n 8192 --d 64`: rank tile shapes, warps and stages by predicted time.
#include <string>
#include <utility>
#include <vector>

#include "sim/core/error.h"
#include "sim/schedule/schedule.h"
#include "sim/work_estimate.h"
#include "src/cli/app.h"
#include "src/cli/commands.h"
#include "src/cli/triton_records.h"
#include "src/report/tiles_report.h"

namespace iosim::cli {

namespace {

/// A search in which no candidate runs has nothing to rank: the problem is refused as the run command
/// refuses it (the schedule's own message at its default tiles), or else with the first candidate's
/// reason.
void refuse_if_none_runs(const std::vector<TileCandidate>& found, const ScheduleContext& base,
                         const TileSearchSpec& spec) {
  if (found.empty()) return;
  for (const TileCandidate& c : found) {
    if (c.rejected.empty()) return;
  }
  (void)make_schedule(spec.schedule, spec.pass, base);  // throws the run command's message, if it has one
  const TileCandidate& first = found.front();
  throw InputError("tiles: none of the " + std::to_string(found.size()) + " candidates of " + spec.schedule +
                   " can run (B_r=" + std::to_string(first.tiles.br) + " B_c=" + std::to_string(first.tiles.bc) +
                   ", " + std::to_string(first.kernel.warps) + " warps: " + first.rejected + ")");
}

}  // namespace

int tiles_command(const ProblemFlags& f, const std::string& format, std::size_t top, std::ostream& out,
                  const Limits& limits) {
  const Resolved r = resolve(f, /*need_n=*/true);
  if (r.problems.size() != 1) throw InputError("tiles: give one n and one d");
  if (r.passes.size() != 1) throw InputError("tiles: --pass must be fwd or bwd");
  if (r.schedules.size() != 1 && !f.schedules.empty()) throw InputError("tiles: give one --schedule");
  const std::string schedule = f.schedules.empty() ? default_tile_schedule() : r.schedules.front();
  const bool triton = r.kernel.source == KernelSource::triton;
  if (r.kernel.source == KernelSource::pytorch) throw InputError("tiles: --kernels must be iosim or triton");
  TileSearchSpec spec = triton ? triton_tile_search_defaults(schedule, r.passes.front())
                               : tile_search_defaults(schedule, r.passes.front());
  spec.gpu = r.run.gpu;
  const ScheduleContext base{r.problems.front(), r.hardware, {}, r.splits, {}};
  if (triton) {
    // Every configuration of the menu compiled (or read from the cache) in one process.
    std::vector<TritonConfig> configs;
    for (std::uint64_t br : spec.sizes) {
      for (std::uint64_t bc : spec.sizes) {
        for (std::uint32_t w : spec.warps) {
          for (std::uint32_t st : spec.stages) configs.push_back({br, bc, base.problem.d, base.problem.causal, w, st, base.problem.dtype});
        }
      }
    }
    spec.compiled = triton_records(configs);
  }
  enforce(estimate_tiles(base, spec), limits);  // refuse what exceeds --max-time or --max-memory
  std::vector<TileCandidate> found = search_tiles(base, spec);
  refuse_if_none_runs(found, base, spec);
  report::TilesReport rep{r.config_file, r.hardware, base.problem, spec, std::move(found), top};
  if (format == "json") {
    out << report::render_tiles_json(rep);
  } else if (format == "csv") {
    out << report::render_tiles_csv(rep);
  } else {
    out << report::render_tiles_table(rep);
  }
  return kExitOk;
}

}  // namespace iosim::cli
