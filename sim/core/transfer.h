// The events a schedule emits: tiles crossing the SRAM boundary, and arithmetic on resident tiles.
#pragma once

#include <cstdint>

#include "sim/core/tensor.h"
#include "sim/core/units.h"

namespace iosim {

/// A rectangle of one tensor of one head: rows [row, row + rows) × columns [col, col + cols).
struct TileRef {
  Tensor tensor = Tensor::Q;
  std::uint64_t row = 0;
  std::uint64_t rows = 0;
  std::uint64_t col = 0;
  std::uint64_t cols = 0;
  std::uint64_t slice = 0;  ///< which copy of the tensor (split-KV partials: the split)

  [[nodiscard]] Elements elements() const { return Elements(checked_mul(rows, cols)); }
};

enum class Direction : std::uint8_t {
  hbm_to_sram,  ///< a load
  sram_to_hbm,  ///< a store
  reduce,       ///< an atomic add into HBM: read, add, write back, done below SRAM (dQ accumulation)
};

/// `tile` moves `times` times (identical repeats, from Walk::runs) in direction `dir`.
struct Transfer {
  TileRef tile;
  Direction dir = Direction::hbm_to_sram;
  std::uint64_t times = 1;
  /// A store's requests per sector: how many store requests write each sector of the tile (the L2
  /// counts a sector once per request that writes it; HBM sees it once). 1 where every sector is
  /// written whole by one request.
  std::uint32_t requests_per_sector = 1;
};

enum class ComputeKind : std::uint8_t {
  matmul,   ///< matrix products (tensor cores)
  vector,   ///< adds, multiplies, compares, divides: scaling, max, sums, rescaling (the FMA pipes)
  special,  ///< exp and log (the special-function units, a quarter of the FMA rate or less)
};

/// `flops` operations of one kind on resident tiles, `times` identical times. `sram_read` is what the
/// operation reads from shared memory (a matrix product's operands, once per warp that needs them).
struct Compute {
  ComputeKind kind = ComputeKind::matmul;
  Flops flops;
  std::uint64_t times = 1;
  Bytes sram_read;
  /// A matrix product's shape, (m × k) · (k × n); 0 for other kinds. The time model splits it over
  /// warps and tensor-core instructions (sim/timing).
  std::uint64_t m = 0, n = 0, k = 0;
};

}  // namespace iosim
