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
  if (p.page_size != 0 && (p.page_size & (p.page_size - 1)) != 0) {
    return "--page-size must be a power of two (got " + std::to_string(p.page_size) + ")";
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

std::uint64_t stored_heads(const Problem& p, Heads h) {
  return p.batch * (h == Heads::kv ? p.kv_head_count() : p.heads);
}

std::uint64_t extent(const Problem& p, Extent e) { return extent(e, p.n, p.n_kv, p.d, p.pages()); }

std::uint64_t tensor_elements(const Problem& p, Tensor t) {
  const TensorShape& s = shape_of(t);
  if (s.schedule_sized || (s.grouped_scratch && p.group() == 1) || (s.block_table && !p.paged())) return 0;
  return stored_heads(p, s.heads) * extent(p, s.rows) * extent(p, s.cols);
}

}  // namespace iosim
