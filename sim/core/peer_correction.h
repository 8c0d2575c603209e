// Defaults for a GPU that was never calibrated: each figure `iosim calibrate` measures, taken as the
// config's datasheet figure times the share of it that calibrated GPUs of the same architecture reach
// (a config's corrected_by: list, docs/configs.md). An H100's clock under load, its HBM and L2
// bandwidth, its mma.sync and GEMM rates and its latencies are those of its datasheet, scaled as the
// H200's measurements scale the H200's datasheet.
#pragma once

#include <string>
#include <vector>

#include "sim/core/hardware.h"

namespace iosim {

/// Every figure of MeasuredSpec with a datasheet figure to scale, by its key: the L2's reduction rate
/// scales the L2's datasheet bandwidth (no datasheet gives a reduction rate), the GEMM rate the tensor
/// peak; the latencies and the clock their `pipeline:` defaults.
[[nodiscard]] std::vector<std::string> correctable_figures();

/// The datasheet figure `key` of `hw` that its measurement is a share of (0 where it has none).
[[nodiscard]] double datasheet_figure(const HardwareSpec& hw, const std::string& key);

/// Fills each figure `hw.measured` lacks from `peers` (calibrated configs of hw's architecture; a peer
/// of the same name as hw is left out, so a GPU is never corrected by itself) and returns what it
/// filled. A figure no peer measured stays unmeasured (the datasheet's).
std::vector<CorrectedFigure> correct_from_peers(HardwareSpec& hw, const std::vector<HardwareSpec>& peers);

}  // namespace iosim
