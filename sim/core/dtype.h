// Element types a problem can be stored in.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "sim/core/units.h"

namespace iosim {

/// int32: indices (the block table of paged K/V), never a problem's element type (parse_dtype refuses it).
enum class DType : std::uint8_t { fp32, fp16, bf16, fp8, int32 };

[[nodiscard]] constexpr std::uint64_t size_bytes(DType t) {
  switch (t) {
    case DType::fp32: return 4;
    case DType::fp16: return 2;
    case DType::bf16: return 2;
    case DType::fp8: return 1;
    case DType::int32: return 4;
  }
  return 0;
}

[[nodiscard]] constexpr std::string_view name(DType t) {
  switch (t) {
    case DType::fp32: return "fp32";
    case DType::fp16: return "fp16";
    case DType::bf16: return "bf16";
    case DType::fp8: return "fp8";
    case DType::int32: return "int32";
  }
  return "?";
}

[[nodiscard]] std::optional<DType> parse_dtype(std::string_view s);

[[nodiscard]] inline Bytes bytes_of(Elements e, DType t) { return Bytes(checked_mul(e.value, size_bytes(t))); }

}  // namespace iosim
