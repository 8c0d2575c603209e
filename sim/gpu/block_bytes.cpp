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
  segments.clear();
  steps = 0;
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint32_t>::max();
  // Each step's transfers are appended as a new segment, then folded into the segment before when
  // they repeat its step moved by the same distances.
  std::uint32_t begin = 0;
  const auto close = [&](bool marker) {
    const auto end = static_cast<std::uint32_t>(items.size());
    if (segments.size() >= 1) {
      Segment& last = segments.back();
      const std::uint32_t n = end - begin;
      if (last.marker == marker && last.end - last.begin == n && last.end == begin) {
        bool same = true;
        for (std::uint32_t i = 0; i < n && same; ++i) {
          const Item& a = items[last.begin + i];
          const Item& b = items[begin + i];
          same = a.same_shape(b) && (last.repeats == 1 || b.start == a.start + last.repeats * a.move);
        }
        if (same) {
          if (last.repeats == 1) {
            for (std::uint32_t i = 0; i < n; ++i) items[last.begin + i].move = items[begin + i].start - items[last.begin + i].start;
          }
          ++last.repeats;
          items.resize(begin);
          return;
        }
      }
    }
    segments.push_back({begin, end, 1, marker});
    begin = end;
  };
  for (const auto& e : scratch.events) {
    if (e.step) {
      ++steps;
      close(true);
      continue;
    }
    const TileBytes b = amap.bytes(e.tile, 0, k.head_map(e.tile.tensor));
    if (b.width > kMax || b.rows > kMax) throw InputError("GPU model: a tile of more than 4 GiB per row or 2^32 rows");
    items.push_back({b.start, b.stride, 0, static_cast<std::uint32_t>(b.width), static_cast<std::uint32_t>(b.rows),
                     static_cast<std::uint8_t>(index(e.tile.tensor)),
                     static_cast<std::uint8_t>(std::min<std::uint64_t>(e.tile.slice, AddressMap::kMaxSlices - 1)),
                     request_of(e.dir)});
  }
  if (items.size() > begin) close(false);
  if (items.size() > kMax) throw InputError("GPU model: a block of more than 2^32 transfers");
  compute = scratch.compute;
  sram = scratch.sram();
  recorded = true;
}

}  // namespace iosim
