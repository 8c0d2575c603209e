#include "sim/core/dtype.h"

namespace iosim {

std::optional<DType> parse_dtype(std::string_view s) {
  for (DType t : {DType::fp32, DType::fp16, DType::bf16, DType::fp8}) {
    if (s == name(t)) return t;
  }
  return std::nullopt;
}

}  // namespace iosim
