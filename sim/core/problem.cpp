#include "sim/core/problem.h"

#include "sim/core/units.h"

namespace iosim {

std::string check(const Problem& p) {
  if (p.batch == 0) return "batch must be at least 1";
  if (p.heads == 0) return "heads must be at least 1";
  if (p.n == 0) return "n must be at least 1";
  if (p.n_kv == 0) return "n_kv must be at least 1";
  if (p.d == 0) return "d must be at least 1";
  if (p.kv_heads != 0 && p.heads % p.kv_heads != 0) {
    return "kv_heads (" + std::to_string(p.kv_heads) + ") must divide heads (" + std::to_string(p.heads) + ")";
  }
  // The largest tensors are n × n_kv per head; the tiled schedules move O(n · n_kv · d) per head. Every
  // count the model makes stays below batch · heads · n · n_kv · (d + 4) · 4 bytes times a small
  // constant, so reject sizes whose product already overflows with margin.
  try {
    std::uint64_t v = checked_mul(p.batch, p.heads);
    v = checked_mul(v, p.n);
    v = checked_mul(v, p.n_kv);
    v = checked_mul(v, checked_add(p.d, 4));
    v = checked_mul(v, 64);
    (void)v;
  } catch (const OverflowError&) {
    return "sizes too large: batch × heads × n × n_kv × d byte counts would overflow 64 bits";
  }
  return {};
}

}  // namespace iosim

namespace iosim {

std::uint64_t tensor_elements(const Problem& p, Tensor t) {
  const std::uint64_t q_rows = p.batch * p.heads * p.n;
  const std::uint64_t kv_rows = p.batch * p.kv_head_count() * p.n_kv;
  switch (t) {
    case Tensor::Q:
    case Tensor::O:
    case Tensor::dO:
    case Tensor::dQ:
    case Tensor::dQacc: return q_rows * p.d;
    case Tensor::K:
    case Tensor::V:
    case Tensor::dK:
    case Tensor::dV: return kv_rows * p.d;
    case Tensor::l:
    case Tensor::m:
    case Tensor::L:
    case Tensor::D: return q_rows;
    default: return 0;
  }
}

}  // namespace iosim
