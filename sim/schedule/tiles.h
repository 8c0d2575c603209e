// Tile references for the row blocks schedules move: a block of rows of a tensor, all its columns.
#pragma once

#include <cstdint>

#include "sim/core/tiling.h"
#include "sim/core/transfer.h"

namespace iosim {

/// Rows `s` of tensor `t`, `cols` columns wide (a Q_i, K_j, O_i … tile).
[[nodiscard]] inline TileRef rows_of(Tensor t, const Span& s, std::uint64_t cols) {
  return TileRef{t, s.begin, s.size, 0, cols};
}

/// Rows `s` of a per-row statistic (l_i, m_i, L_i, D_i).
[[nodiscard]] inline TileRef stat_of(Tensor t, const Span& s) { return TileRef{t, s.begin, s.size, 0, 1}; }

/// The whole `rows × cols` tensor `t` of one head.
[[nodiscard]] inline TileRef whole(Tensor t, std::uint64_t rows, std::uint64_t cols) {
  return TileRef{t, 0, rows, 0, cols};
}

}  // namespace iosim
