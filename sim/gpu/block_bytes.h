// One thread block's transfers mapped to bytes once, for head 0: a block's events do not depend on
// its head (Kernel::block), and a head's copy of a tensor lies a fixed distance from head 0's
// (AddressMap::head_offset), so the fast replay records each x of a kernel once and replays it for
// every head, moving each tile by its tensor's offset.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/gpu/address_map.h"
#include "sim/gpu/block_recorder.h"
#include "sim/memory/memory_level.h"
#include "sim/schedule/kernel.h"

namespace iosim {

struct BlockBytes {
  /// A transfer, or a step marker (tensor == kStep).
  struct Item {
    std::uint64_t start = 0;  ///< TileBytes at head 0
    std::uint64_t stride = 0;
    std::uint32_t width = 0;
    std::uint32_t rows = 0;
    std::uint8_t tensor = 0;
    std::uint8_t slice = 0;  ///< the tensor's copy, up to AddressMap::kMaxSlices − 1
    Request request = Request::read;
    [[nodiscard]] TileBytes at(std::uint64_t offset) const { return {start + offset, width, stride, rows}; }
  };
  static constexpr std::uint8_t kStep = 0xFF;

  std::vector<Item> items;
  std::uint64_t steps = 0;
  ComputeCounts compute;
  Bytes sram;  ///< BlockRecorder::sram()

  /// Block x of `k`, recorded through `scratch`; throws InputError on a tile too wide for 32 bits.
  void record(const Kernel& k, std::uint64_t x, const AddressMap& amap, DType element, BlockRecorder& scratch);
};

}  // namespace iosim
