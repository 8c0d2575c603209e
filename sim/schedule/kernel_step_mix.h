// A kernel's warp instructions in one step, from the compiled kernel where its SASS gives them: the
// steady-state steps of the menu's variant (flash2's forward: a K/V step, unmasked and masked; its
// backward: a Q step of warp 0, which masks without a branch), read through the line information
// (cuda/kernels/step-mix-sm*.csv, scripts/sass-step-mix.py, compiled into the model as
// kernel_menu::kStepMix); else the SM model prices what the schedule does not name from the family's
// fitted step overhead (kernel_family.h's StepOverhead).
#pragma once

#include <cstdint>
#include <string_view>

#include "iosim_generated/kernel_menu.h"
#include "sim/schedule/schedule.h"

namespace iosim {

/// What priced a step's instructions beyond those the schedule names.
enum class OverheadSource : std::uint8_t {
  none,  ///< no step overhead: not the SM model's steps, or a Triton kernel priced from its own record
  fit,   ///< the family's fitted StepOverhead
  sass,  ///< the compiled variant's SASS (kernel_menu::kStepMix)
};

[[nodiscard]] constexpr std::string_view name(OverheadSource s) {
  switch (s) {
    case OverheadSource::fit: return "fit";
    case OverheadSource::sass: return "sass";
    case OverheadSource::none: break;
  }
  return "none";
}

/// The menu's step mix of `kernel` at this variant for `arch` and kind of step (the table's `step`:
/// unmasked, masked, window or producer), or nullptr where the table has none.
[[nodiscard]] const kernel_menu::StepMix* step_mix_variant(std::string_view kernel, std::uint64_t d, DType dtype,
                                                           std::uint64_t br, std::uint64_t bc, std::uint32_t warps,
                                                           std::uint32_t stages, std::string_view arch,
                                                           std::string_view step = "unmasked");

/// A launch's steps as its SASS gives them: the unmasked step, and the masked one ctx's problem runs.
struct KernelStepMix {
  const kernel_menu::StepMix* unmasked = nullptr;  ///< nullptr: the fit prices the steps
  /// The masked step: the window's copy of the masking block where the problem has a sliding window and
  /// the table that row, else the plain masked row; nullptr where the table has neither.
  const kernel_menu::StepMix* masked = nullptr;
};

/// The step mixes of iosim's kernel `kernel` launched as `launch`, for ctx's problem and GPU: only where
/// ctx asks for iosim's kernels and the table has the variant; else both nullptr (the fit prices the step).
[[nodiscard]] KernelStepMix kernel_step_mix(std::string_view kernel, const LaunchShape& launch,
                                            const ScheduleContext& ctx);

}  // namespace iosim
