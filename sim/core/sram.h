// What a thread block keeps on chip. Each schedule declares its resident tiles; the footprint is
// checked against the SRAM one block may use.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/core/dtype.h"
#include "sim/core/tensor.h"
#include "sim/core/units.h"

namespace iosim {

enum class Storage : std::uint8_t {
  shared,     ///< shared memory: counts against the SRAM limit
  registers,  ///< accumulators held in registers by the real kernel: reported, not counted as SRAM
};

struct ResidentTile {
  std::string label;  ///< e.g. "K_j"
  std::uint64_t rows = 0;
  std::uint64_t cols = 0;
  DType type = DType::fp16;
  Storage where = Storage::shared;
  std::uint64_t copies = 1;  ///< pipeline stages keep several copies

  [[nodiscard]] Bytes bytes() const {
    return Bytes(checked_mul(checked_mul(checked_mul(rows, cols), size_bytes(type)), copies));
  }
};

/// The tiles resident at once during one phase of a schedule (a kernel, or a loop of it).
struct SramPhase {
  std::string name;
  std::vector<ResidentTile> tiles;

  [[nodiscard]] Bytes bytes(Storage where) const;
};

struct SramPlan {
  std::vector<SramPhase> phases;

  /// The phase with the most shared memory, and its size: the footprint checked against the limit.
  [[nodiscard]] const SramPhase& peak_phase() const;
  [[nodiscard]] Bytes peak() const;
};

/// Sum of `copies × rows × cols × size` over the tiles stored in `where`.
[[nodiscard]] Bytes footprint(const std::vector<ResidentTile>& tiles, Storage where);

}  // namespace iosim
