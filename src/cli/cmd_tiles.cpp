// `iosim tiles --config h200.yaml --n 8192 --d 64`: rank tile shapes, warps and stages by predicted time.
#include <algorithm>
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

/// --pass fwdbwd: each forward candidate with the backward's at the same tiles, warps and stages added
/// (its kernels, traffic and time), rejected where either pass is; fastest first, as search_tiles ranks.
std::vector<TileCandidate> sum_passes(std::vector<TileCandidate> fwd, const std::vector<TileCandidate>& bwd) {
  for (TileCandidate& c : fwd) {
    const auto b = std::find_if(bwd.begin(), bwd.end(), [&](const TileCandidate& o) {
      return o.tiles == c.tiles && o.kernel.warps == c.kernel.warps && o.kernel.stages == c.kernel.stages;
    });
    if (!c.rejected.empty()) {
      c.rejected = "forward: " + c.rejected;
    } else if (b == bwd.end()) {
      c.rejected = "backward: not searched";
    } else if (!b->rejected.empty()) {
      c.rejected = "backward: " + b->rejected;
    } else {
      c.predicted.kernels.insert(c.predicted.kernels.end(), b->predicted.kernels.begin(), b->predicted.kernels.end());
      c.time.kernels.insert(c.time.kernels.end(), b->time.kernels.begin(), b->time.kernels.end());
      c.time.total_s += b->time.total_s;
    }
  }
  std::stable_sort(fwd.begin(), fwd.end(), [](const TileCandidate& a, const TileCandidate& b) {
    if (a.rejected.empty() != b.rejected.empty()) return a.rejected.empty();
    return a.rejected.empty() && a.time.total_s < b.time.total_s;
  });
  return fwd;
}

}  // namespace

int tiles_command(const ProblemFlags& f, const std::string& format, std::size_t top, std::ostream& out,
                  const Limits& limits) {
  const Resolved r = resolve(f, /*need_n=*/true);
  if (r.problems.size() != 1) throw InputError("tiles: give one n and one d");
  if (r.schedules.size() != 1 && !f.schedules.empty()) throw InputError("tiles: give one --schedule");
  const std::string schedule = f.schedules.empty() ? default_tile_schedule() : r.schedules.front();
  const bool triton = r.kernel.source == KernelSource::triton;
  if (r.kernel.source == KernelSource::pytorch) throw InputError("tiles: --kernels must be iosim or triton");
  const ScheduleContext base{r.problems.front(), r.hardware, {}, r.splits, {}};
  // One search a pass (--pass fwdbwd: two, summed per candidate).
  std::vector<TileSearchSpec> specs;
  for (const Pass pass : r.passes) {
    specs.push_back(triton ? triton_tile_search_defaults(schedule, pass) : tile_search_defaults(schedule, pass));
    specs.back().gpu = r.run.gpu;
  }
  if (triton) {
    // Every configuration of the menu, of every pass, compiled (or read from the cache) in one process.
    std::vector<TritonConfig> configs;
    std::vector<std::size_t> of_spec;
    for (std::size_t s = 0; s < specs.size(); ++s) {
      const TileSearchSpec& spec = specs[s];
      for (std::uint64_t br : spec.sizes) {
        for (std::uint64_t bc : spec.sizes) {
          for (std::uint32_t w : spec.warps) {
            for (std::uint32_t st : spec.stages) {
              const TritonConfig c{br, bc, base.problem.d, base.problem.causal, w, st, base.problem.dtype};
              for (const TritonConfig& one : triton_pass_configs(spec.pass, c)) {
                const auto same = [&](const TritonConfig& o) {
                  return o.kernel == one.kernel && o.block_m == one.block_m && o.block_n == one.block_n &&
                         o.warps == one.warps && o.stages == one.stages;
                };
                if (std::none_of(configs.begin(), configs.end(), same)) {
                  configs.push_back(one);
                  of_spec.push_back(s);
                }
              }
            }
          }
        }
      }
    }
    const auto records = triton_records(configs);
    for (std::size_t i = 0; i < records.size(); ++i) specs[of_spec[i]].compiled.push_back(records[i]);
  }
  for (const TileSearchSpec& spec : specs) enforce(estimate_tiles(base, spec), limits);  // --max-time, --max-memory
  std::vector<TileCandidate> found = search_tiles(base, specs.front());
  refuse_if_none_runs(found, base, specs.front());
  if (specs.size() == 2) {
    const std::vector<TileCandidate> bwd = search_tiles(base, specs.back());
    refuse_if_none_runs(bwd, base, specs.back());
    found = sum_passes(std::move(found), bwd);
  }
  const TileSearchSpec& spec = specs.front();
  report::TilesReport rep{r.config_file, r.hardware, base.problem, spec, std::move(found), top,
                          specs.size() == 2 ? "fwdbwd" : std::string(name(spec.pass))};
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
