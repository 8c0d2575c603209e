// `iosim measure --config h200.yaml --n 8192 --d 64 --schedule flash2`: one kernel on the GPU, its
// hardware counters and time beside the model's prediction for it.
#include <algorithm>

#include "cuda/loader/loader.h"
#include "sim/core/error.h"
#include "src/cli/app.h"
#include "src/cli/commands.h"
#include "src/cli/gpu_spec.h"
#include "src/config/checked_file.h"
#include "src/report/comparison.h"

namespace iosim::cli {

namespace {

gpu::MeasureOptions measure_options(const MeasureFlags& mf) {
  gpu::MeasureOptions mo;
  mo.counters = !mf.no_counters;
  mo.runs = mf.runs;
  mo.warmup = mf.warmup;
  return mo;
}

}  // namespace

report::Comparison measure_case(const GpuCase& c, const std::string& schedule, Pass pass, const MeasureFlags& mf) {
  RunOptions opt;
  opt.predict = true;
  const ScheduleRun model = run_schedule(*make_schedule(schedule, pass, c.model), c.model, opt);
  return report::compare(model, gpu::measure(c.spec, measure_options(mf)));
}

report::Comparison measure_only_case(const GpuCase& c, const std::string& schedule, Pass pass, const MeasureFlags& mf) {
  return report::measured_only(schedule, pass, gpu::measure(c.spec, measure_options(mf)), c.model.kernel);
}

int measure_command(const ProblemFlags& f, const MeasureFlags& mf, const std::string& format, std::ostream& out) {
  // Every file is checked before the GPU runs: a FIFO or a device as --json-out is refused at once.
  if (!mf.json_out.empty()) config::check_output_file(mf.json_out);
  const Resolved r = resolve(f, /*need_n=*/true);
  if (r.problems.size() != 1 || r.tiles.size() != 1) throw InputError("measure: give one n, one d and one tile");
  if (f.schedules.size() != 1) {
    throw InputError("measure: give one --schedule (" + schedule_names(has_cuda_kernels, ", ", " or ") + ")");
  }
  if (r.passes.size() != 1) throw InputError("measure: --pass must be fwd or bwd");
  if (r.kernel.source != KernelSource::iosim) {
    throw InputError("measure runs iosim's kernels: --kernels " + std::string(name(r.kernel.source)) +
                     " is for predictions (iosim --predict)");
  }
  const std::string& schedule = r.schedules.front();
  const Pass pass = r.passes.front();
  const gpu::KernelShape pinned{static_cast<int>(r.kernel.warps), static_cast<int>(r.kernel.stages),
                                static_cast<int>(std::min<std::uint64_t>(r.splits, 1u << 20))};
  require_kernel_window_paging(schedule, pass, r.problems.front(), r.tiles.front().bc.value_or(0));
  // What the build cannot run is said before a missing GPU (flash3's backward, a type not compiled); a
  // module that does not load is the missing GPU's message.
  if (!gpu::load_module().empty()) require_gpu("measure");
  const GpuCase c = gpu_case(schedule, pass, r.problems.front(), r.hardware, r.tiles.front(), pinned, false);
  require_gpu("measure");
  if (const std::string why = gpu::unsupported(c.spec); !why.empty()) throw InputError(why);
  const report::Comparison cmp =
      mf.no_predict ? measure_only_case(c, schedule, pass, mf) : measure_case(c, schedule, pass, mf);
  report::JsonWriter w;
  report::comparison_json(w, cmp);
  if (!mf.json_out.empty()) config::write_regular_file(mf.json_out, w.str());
  out << (format == "json" ? w.str() : report::render_comparison_table(cmp, r.config_file));
  return kExitOk;
}

}  // namespace iosim::cli
