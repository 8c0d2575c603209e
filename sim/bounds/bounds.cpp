#include "sim/bounds/bounds.h"

#include <algorithm>
#include <cmath>

#include "sim/core/tensor.h"

namespace iosim {

namespace {

/// Pairs under the causal mask of n queries and n_kv keys: row r sees min(n_kv, max(0, r + 1 + off))
/// keys, off = n_kv − n.
double causal_pairs(std::uint64_t n_rows, std::uint64_t n_keys) {
  const auto n = static_cast<std::int64_t>(n_rows), nkv = static_cast<std::int64_t>(n_keys);
  const std::int64_t off = nkv - n;
  const std::int64_t first = std::max<std::int64_t>(0, -off);                 // first row seeing a key
  const std::int64_t all = std::clamp<std::int64_t>(nkv - 1 - off, first, n);  // first row seeing them all
  // Rows [first, all) see r + 1 + off keys, an arithmetic series; rows [all, n) see n_kv.
  const auto rows = static_cast<double>(all - first);
  const auto a = static_cast<double>(first + 1 + off), b = static_cast<double>(all + off);
  return rows * (a + b) / 2 + static_cast<double>(n - all) * static_cast<double>(nkv);
}

}  // namespace

double scored_pairs(const Problem& p) {
  if (!p.causal) return static_cast<double>(p.n) * static_cast<double>(p.n_kv);
  if (p.window == 0 || p.window >= p.n_kv) return causal_pairs(p.n, p.n_kv);
  // Row r sees max(0, k) − max(0, k − W) keys, k = r + 1 + off ≤ n_kv: the causal count less the keys
  // before its window, which are the causal count of n_kv − W keys.
  return causal_pairs(p.n, p.n_kv) - causal_pairs(p.n, p.n_kv - p.window);
}

double seen_keys(const Problem& p) {
  // Keys below the window of every row: the first row's window ends at key off = n_kv − n.
  if (!p.causal || p.window == 0) return static_cast<double>(p.n_kv);
  return static_cast<double>(std::min(p.n_kv, p.n + p.window - 1));
}

namespace {

std::string pairs_text(const Problem& p) {
  if (!p.causal) return "N·N_kv";
  return p.window == 0 ? "pairs" : "pairs(W=" + std::to_string(p.window) + ")";
}

}  // namespace

BoundValue upper_bound(BoundKind kind, const Problem& p, std::uint64_t m_elements) {
  const auto bh = static_cast<double>(p.batch_heads());
  const auto n = static_cast<double>(p.n);
  const auto d = static_cast<double>(p.d);
  const auto m = static_cast<double>(m_elements);
  const double pairs = scored_pairs(p);
  switch (kind) {
    case BoundKind::standard: return {"B·H·(N·d + " + pairs_text(p) + ")", bh * (n * d + pairs)};
    case BoundKind::io_aware: return {"B·H·" + pairs_text(p) + "·d²/M", bh * pairs * d * d / m};
    case BoundKind::small_sram: return {"B·H·" + pairs_text(p) + "·d/√M", bh * pairs * d / std::sqrt(m)};
  }
  return {};
}

double seeing_rows(const Problem& p) {
  // Bottom-right alignment: row r sees key c ≤ r + n_kv − n, so the last row sees every key and the
  // rows r < n − n_kv see none.
  if (!p.causal) return static_cast<double>(p.n);
  return static_cast<double>(std::min(p.n, p.n_kv));
}

BoundValue lower_bound(const Problem& p, std::uint64_t m_elements, bool backward) {
  // What must move at least once: every output written whole (a masked row's is 0, still written);
  // of the inputs, every key and value some row sees (without a window the last row sees them all)
  // but only the query rows that see a key, and, backward, only their O and dO: a row that sees none
  // has its output, and gradients of 0, without reading anything.
  const double seen = static_cast<double>(p.n) > 0 ? seeing_rows(p) / static_cast<double>(p.n) : 1;
  const auto elements = [&](Tensor t) { return static_cast<double>(tensor_elements(p, t)); };
  const double kv_seen = p.n_kv > 0 ? seen_keys(p) / static_cast<double>(p.n_kv) : 1;
  const double kv = (elements(Tensor::K) + elements(Tensor::V)) * kv_seen;
  const double io = backward ? (elements(Tensor::Q) + elements(Tensor::O) + elements(Tensor::dO)) * seen + kv +
                                   elements(Tensor::dQ) + elements(Tensor::dK) + elements(Tensor::dV)
                             : elements(Tensor::Q) * seen + kv + elements(Tensor::O);
  const auto bh = static_cast<double>(p.batch_heads());
  const auto d = static_cast<double>(p.d);
  const auto m = static_cast<double>(m_elements);
  const bool large = m >= d * d;
  const double attention = large ? bh * scored_pairs(p) * d * d / m : bh * scored_pairs(p) * d / std::sqrt(m);
  const std::string term = "B·H·" + pairs_text(p) + (large ? "·d²/M" : "·d/√M");
  return {"max(inputs + outputs, " + term + ")", std::max(io, attention)};
}

}  // namespace iosim
