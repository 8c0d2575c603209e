// Host-side decoding of fp16 and bf16 bit patterns (no CUDA headers, so host files stay warning-free).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace iosim::gpu::detail {

[[nodiscard]] inline double half_bits_to_double(std::uint16_t h) {
  const double sign = (h & 0x8000u) != 0 ? -1.0 : 1.0;
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  if (exponent == 0) return sign * std::ldexp(static_cast<double>(mantissa), -24);  // zero, subnormal
  if (exponent == 0x1f) return mantissa != 0 ? std::numeric_limits<double>::quiet_NaN()
                                             : sign * std::numeric_limits<double>::infinity();
  return sign * std::ldexp(static_cast<double>(1024 + mantissa), exponent - 25);
}

[[nodiscard]] inline double bf16_bits_to_double(std::uint16_t b) {
  return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16));
}

}  // namespace iosim::gpu::detail
