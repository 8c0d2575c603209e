// The inputs of an execution, in double: Q, K, V and dO of one head, drawn from a seed or supplied by
// the caller (tests build inputs with a property, such as scores that fall along the keys).
#pragma once

#include <cstdint>

#include "sim/exec/execute.h"
#include "sim/exec/matrix.h"

namespace iosim::exec {

struct Inputs {
  MatrixD q;     ///< n × d
  MatrixD k;     ///< n_kv × d
  MatrixD v;     ///< n_kv × d
  MatrixD dout;  ///< n × d, the gradient of O (backward only)
};

/// Standard normal entries from a 64-bit Mersenne Twister seeded with `seed` (Box–Muller, written out
/// so the values are the same with every standard library); Q and K multiplied by `scale`.
[[nodiscard]] Inputs random_inputs(std::uint64_t n, std::uint64_t n_kv, std::uint64_t d, std::uint64_t seed,
                                   double scale);

/// Executes head 0 of `s` on `in` (shapes as p says; o.seed and o.input_scale are only reported).
/// Throws as check_execution, and InputError when the shapes do not match p.
[[nodiscard]] ExecutionResult execute(const Schedule& s, const Problem& p, const ExecuteOptions& o,
                                      const Inputs& in);

}  // namespace iosim::exec
