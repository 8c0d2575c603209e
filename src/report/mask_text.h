// The mask as the reports' problem lines print it: nothing, ", causal" or ", causal, window W".
#pragma once

#include <string>

#include "sim/core/problem.h"

namespace iosim::report {

[[nodiscard]] inline std::string mask_text(const Problem& p) {
  if (!p.causal) return {};
  return p.window == 0 ? ", causal" : ", causal, window " + std::to_string(p.window);
}

}  // namespace iosim::report
