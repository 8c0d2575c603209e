#include "sim/core/problem.h"

#include "sim/core/units.h"

namespace iosim {

std::string check(const Problem& p) {
  if (p.batch == 0) return "batch must be at least 1";
  if (p.heads == 0) return "heads must be at least 1";
  if (p.n == 0) return "n must be at least 1";
  if (p.n_kv == 0) return "n_kv must be at least 1";
  if (p.d == 0) return "d must be at least 1";
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
