// What predict()'s L2 replay reads of a schedule, so that schedules whose replays would be the same
// can share one (the tiles search: candidates that differ only in warps or stages, and get as many
// blocks per SM, replay the same blocks in the same interleaving).
//
// Both replays (gpu_model.cpp, fast_kernel.cpp) read, of each kernel in launch order: its grid (x
// count, heads), how its grid heads index each tensor, how many blocks run at once, and every block's
// transfers and step markers, in order (the step markers decide the interleaving); the fast one
// also reads the schedule's own transfers (Walk::runs), which set its first stride. Everything else
// they read (problem, hardware, GpuModelOptions) is not part of the input: compare inputs only under
// the same ScheduleContext::problem, hardware and options. What the replay does not read, the
// blocks' arithmetic and shared-memory traffic and the launch's shape, is each schedule's own
// (KernelPrediction's launch, occupancy, FLOPs, sram and busiest SM): with_work() puts it back.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sim/gpu/gpu_model.h"
#include "sim/schedule/schedule.h"

namespace iosim {

struct ReplayInput {
  /// Each kernel's grid, head maps and blocks at once, word for word.
  std::vector<std::uint64_t> shape;
  /// Two 64-bit digests, by different multiply-rotate chains, of every transfer and step marker of
  /// every block (x by x, kernel by kernel) and of the schedule's own transfers, in uniquely
  /// decodable words: equal inputs have equal digests; unequal ones would have to collide in both
  /// chains at once (not a cryptographic guarantee: the inputs are not chosen to collide).
  std::array<std::uint64_t, 2> digest{};
  /// Per kernel: the prediction's fields the replay does not decide (no L2 or DRAM counts).
  std::vector<KernelPrediction> work;

  [[nodiscard]] bool same_replay(const ReplayInput& o) const { return shape == o.shape && digest == o.digest; }
};

/// Records every block of every kernel of `s` once (Walk::each; one head: blocks do not depend on
/// it). Throws InputError when a kernel's block cannot fit an SM, as predict() does.
[[nodiscard]] ReplayInput replay_input(const Schedule& s, const ScheduleContext& ctx, LaunchOrder order);

/// `replayed`, a prediction of a schedule whose input was the same replay as `own`'s, with `own`'s
/// work: what predict() would have returned for `own`'s schedule.
[[nodiscard]] Prediction with_work(Prediction replayed, const ReplayInput& own);

}  // namespace iosim
