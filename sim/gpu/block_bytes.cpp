#include "sim/gpu/block_bytes.h"

#include <algorithm>
#include <limits>

#include "sim/core/error.h"
#include "sim/gpu/request_batch.h"

namespace iosim {

void BlockBytes::record(const Kernel& k, std::uint64_t x, const AddressMap& amap, DType element,
                        BlockRecorder& scratch) {
  scratch.reset(element);
  const Tiling g = k.grid_x();
  k.block(Span{x, 1, g.size(x), g.begin(x)}, Emitter(scratch, Walk::each));
  items.clear();
  items.reserve(scratch.events.size());
  steps = 0;
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint32_t>::max();
  for (const auto& e : scratch.events) {
    if (e.step) {
      ++steps;
      items.push_back({0, 0, 0, 0, kStep, 0, Request::read});
      continue;
    }
    const TileBytes b = amap.bytes(e.tile, 0, k.head_map(e.tile.tensor));
    if (b.width > kMax || b.rows > kMax) throw InputError("GPU model: a tile of more than 4 GiB per row or 2^32 rows");
    items.push_back({b.start, b.stride, static_cast<std::uint32_t>(b.width), static_cast<std::uint32_t>(b.rows),
                     static_cast<std::uint8_t>(index(e.tile.tensor)),
                     static_cast<std::uint8_t>(std::min<std::uint64_t>(e.tile.slice, AddressMap::kMaxSlices - 1)),
                     request_of(e.dir)});
  }
  compute = scratch.compute;
  sram = scratch.sram();
}

}  // namespace iosim
