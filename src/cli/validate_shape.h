// `validate --shape`'s problem options: the causal mask, n_kv, a sliding window and paged K/V, applied to
// every --shape problem, so that validate measures the kernels that run them (cuda/window_paging.h
// names those) against the model's counts of the same problem.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/problem.h"

namespace iosim::cli {

struct ShapeOptions {
  bool causal = false;
  std::optional<std::int64_t> n_kv;       ///< keys per head (decode: n = 1 against a long cache); unset: n
  std::optional<std::int64_t> window;     ///< with causal: a sliding window of this many keys
  std::optional<std::int64_t> page_size;  ///< paged K/V: rows per page
  std::string page_order;                 ///< with page_size: contiguous (default), random or a seed

  [[nodiscard]] bool any() const { return causal || n_kv || window || page_size || !page_order.empty(); }
};

/// Applies `o` to every problem of `shapes`. Throws InputError, one line naming the flag, for options
/// without a --shape, a size that is not positive, a window without --causal or wider than n_kv, a page
/// size that is not a power of two, or a --page-order that is none of its forms or has no --page-size.
void apply_shape_options(const ShapeOptions& o, std::vector<Problem>& shapes);

}  // namespace iosim::cli
