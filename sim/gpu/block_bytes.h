// One thread block's transfers mapped to bytes once, for head 0: a block's events do not depend on
// its head (Kernel::block), and a head's copy of a tensor lies a fixed distance from head 0's
// (AddressMap::head_offset), so the fast replay records each x of a kernel once and replays it for
// every head, moving each tile by its tensor's offset.
//
// Steps are kept in runs: consecutive steps whose transfers are the same tiles but for where they
// start, each start moving by the same distance from one step to the next (a block's K/V loop), are
// one segment, its first step's transfers, their moves and a repeat count. Replaying the segments
// gives the same transfers in the same order as the events recorded.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/gpu/address_map.h"
#include "sim/gpu/block_recorder.h"
#include "sim/memory/memory_level.h"
#include "sim/schedule/kernel.h"

namespace iosim {

struct BlockBytes {
  /// A transfer of a segment's first step.
  struct Item {
    std::uint64_t start = 0;  ///< TileBytes at head 0
    std::uint64_t stride = 0;
    std::uint64_t move = 0;   ///< added to start at each repeat of its segment (modulo 2^64)
    std::uint32_t width = 0;
    std::uint32_t rows = 0;
    std::uint8_t tensor = 0;
    std::uint8_t slice = 0;  ///< the tensor's copy, up to AddressMap::kMaxSlices − 1
    Request request = Request::read;
    /// The tile at repeat `r` of its segment, moved by `offset`.
    [[nodiscard]] TileBytes at(std::uint64_t offset, std::uint64_t r) const {
      return {start + r * move + offset, width, stride, rows};
    }
    /// The same tile but for where it starts.
    [[nodiscard]] bool same_shape(const Item& o) const {
      return stride == o.stride && width == o.width && rows == o.rows && tensor == o.tensor && slice == o.slice &&
             request == o.request;
    }
  };
  /// `repeats` steps, each the transfers items[begin, end) moved by their `move` × the repeat; each
  /// ends at a step marker when `marker` (otherwise it ends the block: the last segment).
  struct Segment {
    std::uint32_t begin = 0, end = 0;
    std::uint64_t repeats = 1;
    bool marker = true;
  };

  std::vector<Item> items;
  std::vector<Segment> segments;
  std::uint64_t steps = 0;  ///< step markers
  ComputeCounts compute;
  Bytes sram;  ///< BlockRecorder::sram()

  /// Block x of `k`, recorded through `scratch`; throws InputError on a tile too wide for 32 bits.
  void record(const Kernel& k, std::uint64_t x, const AddressMap& amap, DType element, BlockRecorder& scratch);
  bool recorded = false;  ///< record() has filled it
};

}  // namespace iosim
