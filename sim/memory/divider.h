// Division by a divisor fixed at run time, without the hardware division (the L2 model's hot path).
#pragma once

#include <cstdint>

namespace iosim {

/// n ÷ d and n mod d: a multiply by the reciprocal, then one correction. The reciprocal is
/// ⌊(2^64 − 1) / d⌋, which fits 64 bits for every d ≥ 1 (⌊2^64 / 1⌋ does not: an L2 of one set); it
/// is at most 1 below 2^64 / d, so the estimate n·m / 2^64 is at most 1 below n / d for n < 2^64,
/// and one correction makes it exact.
struct Divider {
  __extension__ using u128 = unsigned __int128;
  std::uint64_t d = 1;
  std::uint64_t m = ~std::uint64_t{0};  ///< ⌊(2^64 − 1) / d⌋
  void set(std::uint64_t divisor) {
    d = divisor;
    m = ~std::uint64_t{0} / divisor;
  }
  [[nodiscard]] std::uint64_t div(std::uint64_t n, std::uint64_t& rem) const {
    auto q = static_cast<std::uint64_t>((static_cast<u128>(n) * m) >> 64);
    rem = n - q * d;
    if (rem >= d) {
      ++q;
      rem -= d;
    }
    return q;
  }
  [[nodiscard]] std::uint64_t div(std::uint64_t n) const {
    std::uint64_t rem = 0;
    return div(n, rem);
  }
};

}  // namespace iosim
