// The HBM-access bounds of the FlashAttention paper (Theorem 2), evaluated at a problem and an SRAM size.
#pragma once

#include <cstdint>
#include <string>

#include "sim/core/problem.h"

namespace iosim {

enum class BoundKind : std::uint8_t {
  standard,  ///< Θ(N·d + N²): attention with S and P in HBM (Theorem 2)
  io_aware,  ///< Θ(N²·d²/M): tiled attention with the n × n intermediates on chip (Theorem 2)
};

struct BoundValue {
  BoundKind kind = BoundKind::standard;
  std::string formula;  ///< e.g. "B·H·N·N_kv·d²/M"
  double value = 0;     ///< in elements, all batch × heads
};

/// The bound `kind` at problem `p` and SRAM size `m_elements` (M), with constant 1. N is the query
/// length and N_kv the key length, so N² reads N·N_kv when they differ.
[[nodiscard]] BoundValue upper_bound(BoundKind kind, const Problem& p, std::uint64_t m_elements);

}  // namespace iosim
