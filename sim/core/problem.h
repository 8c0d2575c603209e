// One attention problem: shapes and element type. Plain data; check() says what is wrong with it.
#pragma once

#include <cstdint>
#include <string>

#include "sim/core/dtype.h"

namespace iosim {

struct Problem {
  std::uint64_t batch = 1;
  std::uint64_t heads = 1;
  std::uint64_t n = 0;     ///< queries per head
  std::uint64_t n_kv = 0;  ///< keys and values per head
  std::uint64_t d = 0;     ///< head dimension
  DType dtype = DType::fp16;

  [[nodiscard]] std::uint64_t batch_heads() const { return batch * heads; }
};

/// Empty when `p` can be modelled; otherwise one line naming the first problem found
/// (a size that is zero, or sizes whose byte counts would overflow 64 bits).
[[nodiscard]] std::string check(const Problem& p);

}  // namespace iosim
