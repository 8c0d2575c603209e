// Paged K/V as the reports' problem lines print it: nothing, or ", pages of P (contiguous)" /
// ", pages of P (random, seed S)".
#pragma once

#include <string>

#include "sim/core/problem.h"

namespace iosim::report {

[[nodiscard]] inline std::string page_order_text(const Problem& p) {
  return p.page_order == PageOrder::contiguous ? "contiguous" : "random, seed " + std::to_string(p.page_seed);
}

[[nodiscard]] inline std::string pages_text(const Problem& p) {
  if (!p.paged()) return {};
  return ", pages of " + std::to_string(p.page_size) + " (" + page_order_text(p) + ")";
}

}  // namespace iosim::report
