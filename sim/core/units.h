// Quantities with units in their type: elements, bytes and FLOPs are not interchangeable integers.
// All arithmetic is checked: a count that would leave 64 bits throws OverflowError instead of wrapping.
#pragma once

#include <compare>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace iosim {

/// Thrown when an exact count does not fit in 64 bits.
class OverflowError : public std::overflow_error {
 public:
  using std::overflow_error::overflow_error;
};

[[nodiscard]] inline std::uint64_t checked_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) throw OverflowError("count overflows 64 bits");
  return r;
}

[[nodiscard]] inline std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) throw OverflowError("count overflows 64 bits");
  return r;
}

[[nodiscard]] inline std::uint64_t checked_sub(std::uint64_t a, std::uint64_t b) {
  if (b > a) throw OverflowError("count would go below zero");
  return a - b;
}

/// ⌈a / b⌉ for b > 0.
[[nodiscard]] constexpr std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0); }

/// A non-negative integer count tagged with its unit.
template <class Tag>
struct Quantity {
  std::uint64_t value = 0;

  constexpr Quantity() = default;
  constexpr explicit Quantity(std::uint64_t v) : value(v) {}

  Quantity& operator+=(Quantity o) { value = checked_add(value, o.value); return *this; }
  Quantity& operator-=(Quantity o) { value = checked_sub(value, o.value); return *this; }
  friend Quantity operator+(Quantity a, Quantity b) { return a += b; }
  friend Quantity operator-(Quantity a, Quantity b) { return a -= b; }
  friend Quantity operator*(Quantity a, std::uint64_t k) { return Quantity(checked_mul(a.value, k)); }
  friend Quantity operator*(std::uint64_t k, Quantity a) { return a * k; }
  friend constexpr auto operator<=>(Quantity, Quantity) = default;
};

struct ElementsTag {};
struct BytesTag {};
struct FlopsTag {};
using Elements = Quantity<ElementsTag>;
using Bytes = Quantity<BytesTag>;
using Flops = Quantity<FlopsTag>;

}  // namespace iosim
