// Numbers for people: SI bytes (as the FlashAttention paper counts GB), KiB for on-chip sizes,
// thousands separators for exact counts.
#pragma once

#include <cstdint>
#include <string>

#include "sim/core/units.h"

namespace iosim::report {

/// 1234567890 → "1.23 GB" (powers of 1000).
[[nodiscard]] std::string si_bytes(double bytes);
[[nodiscard]] inline std::string si_bytes(Bytes b) { return si_bytes(static_cast<double>(b.value)); }
/// 232448 → "227.0 KiB" (powers of 1024).
[[nodiscard]] std::string binary_bytes(Bytes b);
/// 68719476736 → "68.7 G" (powers of 1000, no unit).
[[nodiscard]] std::string si_count(double v);
/// 83456 → "83,456".
[[nodiscard]] std::string grouped(std::uint64_t v);
/// A ratio with two significant decimals; "-" when the denominator is zero.
[[nodiscard]] std::string ratio(double num, double den);

}  // namespace iosim::report
