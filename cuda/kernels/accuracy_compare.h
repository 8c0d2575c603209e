// The comparison check_accuracy makes of one output with its reference (cuda/kernels/accuracy.cpp,
// decode_accuracy.cpp).
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda/backend.h"
#include "sim/core/tensor.h"

namespace iosim::gpu::detail {

/// Relative error allowed: 2e-3 for fp16, 1e-2 for bf16.
[[nodiscard]] constexpr double tolerance_of(DType t) { return t == DType::bf16 ? 1e-2 : 2e-3; }

/// ‖out − ref‖₂ / ‖ref‖₂ and max |out − ref| over the elements that are not NaN; NaNs (the poison,
/// or a NaN the kernel computed) are counted as unwritten. An infinite reference (L = −inf of a row
/// that sees no key) is matched only by the same infinity and stays out of ‖ref‖.
inline Accuracy compare(Tensor t, const std::vector<double>& out, const std::vector<double>& ref, double tolerance) {
  if (out.size() != ref.size()) throw std::logic_error("check_accuracy: output and reference sizes differ");
  Accuracy a;
  a.tensor = std::string(name(t));
  a.tolerance = tolerance;
  double diff2 = 0, ref2 = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (std::isfinite(ref[i])) ref2 += ref[i] * ref[i];
    if (std::isnan(out[i])) {
      ++a.unwritten;
      continue;
    }
    const double diff = out[i] == ref[i] ? 0.0 : out[i] - ref[i];
    diff2 += diff * diff;
    a.max_abs_error = std::fmax(a.max_abs_error, std::fabs(diff));
  }
  a.rel_error = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  return a;
}

/// check_accuracy for a flashdecode spec (cuda/kernels/decode_accuracy.cpp): O and L against a
/// double-precision reference that reads each query head's K/V head.
[[nodiscard]] std::vector<Accuracy> check_decode_accuracy(const KernelSpec& spec, std::uint64_t seed);

}  // namespace iosim::gpu::detail
