// What the `eager` schedule (PyTorch's eager operators running standard attention: naive_fwd.cpp,
// naive_bwd.cpp) refuses: the masks and grouped K/V heads its eager code would handle with kernels
// iosim does not count.
#pragma once

#include "sim/core/error.h"
#include "sim/core/problem.h"

namespace iosim::detail {

inline void require_eager_problem(const Problem& p) {
  if (p.causal) {
    throw InputError("eager: the causal mask is not modelled (PyTorch's eager code adds a masked_fill over S); "
                     "use --schedule naive");
  }
  if (p.group() != 1) {
    throw InputError("eager: grouped K/V heads are not modelled (PyTorch's eager matmul needs K and V repeated "
                     "per query head); use --schedule naive");
  }
}

}  // namespace iosim::detail
