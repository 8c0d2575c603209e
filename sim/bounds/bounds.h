// The HBM-access bounds, evaluated at a problem and an SRAM size M (elements), with constant 1:
//   upper, by the schedule's kind — Theorem 2 (and 5, backward) of the FlashAttention paper:
//     standard   Θ(N·d + N²)        attention with S and P in HBM
//     io_aware   Θ(N²·d²/M)         tiled attention with the n × n intermediates on chip
//     small_sram Θ(N²·d/√M)         tiled attention that also tiles d (Saha & Ye 2024), for M < d²
//   lower, for every exact attention algorithm — Proposition 3 of the FlashAttention paper for M ≥ d²,
//   Saha & Ye 2024 (standard matrix multiplication) below — never less than reading every input and
//   writing every output once.
// N² stands for the number of (query, key) pairs scored: N·N_kv, or fewer under a causal mask; under a
// sliding window of W keys at most N·W, so the bounds grow as Θ(N·W·d²/M), linearly in N ("pairs(W=…)").
#pragma once

#include <cstdint>
#include <string>

#include "sim/core/problem.h"

namespace iosim {

enum class BoundKind : std::uint8_t { standard, io_aware, small_sram };

struct BoundValue {
  std::string formula;  ///< e.g. "B·H·N·N_kv·d²/M"
  double value = 0;     ///< elements, all batch × heads
};

/// (query, key) pairs that are scored per head: N·N_kv, or those the causal mask (and window) keeps.
[[nodiscard]] double scored_pairs(const Problem& p);

/// Keys some query row sees: n_kv, or under a window of W keys min(n_kv, n + W − 1) (the keys before the
/// first row's window are seen by none).
[[nodiscard]] double seen_keys(const Problem& p);

[[nodiscard]] BoundValue upper_bound(BoundKind kind, const Problem& p, std::uint64_t m_elements);

/// Query rows that see at least one key: n, or under a causal mask (bottom-right) min(n, n_kv).
[[nodiscard]] double seeing_rows(const Problem& p);

/// Elements every exact algorithm must move at least: max(inputs read + outputs written once,
/// B·H·pairs·d²/M for M ≥ d², B·H·pairs·d/√M for M < d²). `backward` reads Q, K, V, O, dO and writes
/// dQ, dK, dV; the forward reads Q, K, V and writes O. Under a causal mask the query rows that see no
/// key (n > n_kv) are not read, nor their O and dO: their output is 0 without them.
[[nodiscard]] BoundValue lower_bound(const Problem& p, std::uint64_t m_elements, bool backward);

}  // namespace iosim
