// Which tiles are in SRAM after each transfer of a trace, derived from the transfers alone.
//
// The rule (one tile per tensor, as the tiled schedules keep one buffer per operand):
//   - a load of tensor T puts that tile in T's slot, replacing whatever T's slot held;
//   - a store or reduce of T puts the written tile in T's slot, marked written back: the schedule is
//     done with it, and its slot is free as soon as the schedule loads anything again;
//   - so every load first drops the tiles marked written back, then fills its own slot.
// Tiles made on chip are listed only from the transfer that writes them (flash2 accumulates O_i, m_i
// and l_i in registers; they appear when O_i and L_i are stored). A loaded tile stays listed until the
// next load of the same tensor replaces it, which is when its SRAM buffer is overwritten.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/transfer.h"

namespace iosim {

/// A tile in SRAM: the transfer that put it there, and whether that transfer wrote it back to HBM.
struct HeldTile {
  TileRef tile;
  bool written_back = false;
  std::uint64_t since = 0;  ///< step (transfer number) that put it there
};

class Residency {
 public:
  /// Applies transfer number `step`, moving `t` in direction `dir`.
  void apply(const TileRef& t, Direction dir, std::uint64_t step);

  /// The tiles held now, in tensor order (Q K V O … as Tensor lists them).
  [[nodiscard]] std::vector<HeldTile> tiles() const;
  /// The tile held for tensor `t`, or nullptr.
  [[nodiscard]] const HeldTile* find(Tensor t) const;

 private:
  std::vector<HeldTile> held_;  ///< at most one per tensor, unordered
};

}  // namespace iosim
