// Least-squares slope of log y against log x: how a count scales with a size.
#pragma once

#include <span>

namespace iosim {

/// Slope of the least-squares line through (log x_i, log y_i). Needs two or more distinct x > 0, y > 0.
[[nodiscard]] double loglog_slope(std::span<const double> x, std::span<const double> y);

}  // namespace iosim
