#include "sim/bounds/bounds.h"

namespace iosim {

BoundValue upper_bound(BoundKind kind, const Problem& p, std::uint64_t m_elements) {
  const double bh = static_cast<double>(p.batch_heads());
  const double n = static_cast<double>(p.n);
  const double nkv = static_cast<double>(p.n_kv);
  const double d = static_cast<double>(p.d);
  const double m = static_cast<double>(m_elements);
  switch (kind) {
    case BoundKind::standard: return {kind, "B·H·(N·d + N·N_kv)", bh * (n * d + n * nkv)};
    case BoundKind::io_aware: return {kind, "B·H·N·N_kv·d²/M", bh * n * nkv * d * d / m};
  }
  return {};
}

}  // namespace iosim
