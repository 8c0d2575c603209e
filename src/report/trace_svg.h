// `iosim trace --format svg`: a picture of each trace, side by side. Hand-written SVG, no dependency.
//
// Per schedule, a panel: the n × n_kv score matrix cut into B_r × B_c tiles (Q tiles down, K/V tiles
// across), each tile coloured and numbered by the order its S_ij = Q_i K_jᵀ is computed, a line through
// that order; at one step, the Q tile's rows and the K tile's columns held in SRAM outlined and the tile
// being computed framed; beside it a strip with one bar per tensor (its rows), the part in SRAM filled.
// Tile rectangles carry class="tile" and data-i, data-j, data-visit ("none" when never computed).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/trace/trace_sink.h"

namespace iosim::report {

/// The SVG document. `at` is the step whose SRAM contents are shown, the same for every panel; by
/// default each panel's middle step. Throws InputError when `at` is past a trace's last step.
[[nodiscard]] std::string render_trace_svg(const std::vector<Trace>& traces, std::optional<std::uint64_t> at);

}  // namespace iosim::report
