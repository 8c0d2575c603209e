// From the program's resolved flags to what the CUDA backend runs, and the model configured like it.
#pragma once

#include <string>

#include "cuda/backend.h"
#include "sim/run.h"
#include "sim/schedule/registry.h"
#include "src/cli/problem_flags.h"
#include "src/report/comparison.h"

namespace iosim::cli {

/// A backend kernel and the model run configured as that kernel is built: same problem, tile, warps
/// and stages.
struct GpuCase {
  gpu::KernelSpec spec;
  ScheduleContext model;
};

/// Throws InputError for a sliding window or paged K/V that `schedule`'s `pass` kernel does not run (which
/// do: cuda/window_paging.h),
/// or pages that the K/V tile `bc` (0: not known yet) and the page size do not fit. Needs no GPU: said
/// before a missing GPU, as what the build refuses is.
void require_kernel_window_paging(const std::string& schedule, Pass pass, const Problem& p, std::uint64_t bc);

/// `schedule` and `pass` of problem `p` with tile `tiles` (the kernel's default where unset) and the
/// warps and stages of `pinned` (the tile's default where 0). Throws InputError when the build has no
/// such kernel or, with `on_device`, this GPU cannot run it (the message says why). Without `on_device`
/// no GPU is needed: what the build refuses is said before a missing GPU.
[[nodiscard]] GpuCase gpu_case(const std::string& schedule, Pass pass, const Problem& p, const HardwareSpec& hw,
                               const TileRequest& tiles, gpu::KernelShape pinned = {}, bool on_device = true);

/// Whether the CUDA backend has kernels of the schedule (its registry entry names them).
[[nodiscard]] bool has_cuda_kernels(const ScheduleEntry& e);

/// Today's date, UTC, as YYYY-MM-DD (names and stamps of GPU results).
[[nodiscard]] std::string today();

/// Throws InputError unless this build has the backend and a GPU is visible.
void require_gpu(const char* command);

struct MeasureFlags;

/// The model's prediction for `c` and the measurement of its kernel, side by side.
[[nodiscard]] report::Comparison measure_case(const GpuCase& c, const std::string& schedule, Pass pass,
                                              const MeasureFlags& mf);

/// The measurement of `c`'s kernel alone, no prediction (report::measured_only).
[[nodiscard]] report::Comparison measure_only_case(const GpuCase& c, const std::string& schedule, Pass pass,
                                                   const MeasureFlags& mf);

}  // namespace iosim::cli
