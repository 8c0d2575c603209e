// The exact replay's request stream for the lab programs of bench/l2_analytic*: the same blocks, slots,
// steps and lines as gpu_model.cpp's KernelRun (x-major launch, slots refilled as blocks end, one step
// of every busy slot a round), one round at a time, so that a pass can replay some rounds through an
// L2 and only walk others (their tiles' sectors, from the tile's bytes, without the lines).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "sim/core/emitter.h"
#include "sim/gpu/address_map.h"
#include "sim/gpu/block_recorder.h"
#include "sim/gpu/gpu_model.h"
#include "sim/gpu/occupancy.h"
#include "sim/gpu/request_batch.h"
#include "sim/schedule/registry.h"

namespace iosim::lab {

/// One request of the stream: a line (line mode) or a whole tile (tile mode: line = mask = 0).
struct Req {
  Request r;
  std::uint64_t line;
  std::uint32_t mask;
  std::uint32_t sm;
  Tensor tensor;
  std::uint64_t column;   ///< K/V: the tile's first row ÷ its rows (the K/V column of the walk)
  std::uint64_t head;
  std::uint64_t sectors;  ///< the sectors asked for: the mask's in line mode, the tile's in tile mode
};

/// The sectors a tile covers: whole rows of `width` bytes every `stride` bytes from `start`.
inline std::uint64_t tile_sectors(const TileBytes& b, std::uint64_t sector) {
  if (b.rows == 0 || b.width == 0) return 0;
  const auto span = [&](std::uint64_t s, std::uint64_t w) { return (s + w - 1) / sector - s / sector + 1; };
  if (b.contiguous()) return span(b.start, b.width * b.rows);
  std::uint64_t n = 0;
  for (std::uint64_t r = 0; r < b.rows; ++r) {
    n += span(b.start + r * b.stride, b.width);  // rows a stride apart; none share a sector when
                                                 // stride − width ≥ a sector (checked: tile_check)
  }
  return n;
}

/// The stream, kernel by kernel, a round at a time.
class Stream {
 public:
  Stream(const std::vector<const Kernel*>& kernels, const ScheduleContext& ctx, const AddressMap& amap)
      : kernels_(kernels), ctx_(ctx), amap_(amap) {
    begin_kernel();
  }

  /// Runs one round; calls `f` for each line request (`lines`) or each tile (not `lines`). False once
  /// every kernel has ended (then nothing was called).
  bool round(bool lines, const std::function<void(const Req&)>& f) {
    while (running_ == 0) {
      if (++kernel_ >= kernels_.size()) return false;
      begin_kernel();
    }
    const Kernel* k = kernels_[kernel_];
    const std::uint64_t sms = ctx_.hardware.sm.count;
    const std::uint64_t sector = amap_sector();
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      Slot& s = slots_[i];
      if (!s.busy) continue;
      bool more = false;
      const auto& ev = s.rec.events;
      while (s.next < ev.size()) {
        const auto& e = ev[s.next++];
        if (e.step) {
          more = true;
          break;
        }
        const std::uint64_t col = e.tile.rows == 0 ? 0 : e.tile.row / e.tile.rows;
        const auto sm = static_cast<std::uint32_t>(i % sms);
        const HeadMap map = k->head_map(e.tile.tensor);
        if (lines) {
          buf_.clear();
          amap_.lines(e.tile, s.head, map, buf_);
          for (const LineAccess& a : buf_) {
            f(Req{request_of(e.dir), a.line, a.mask, sm, e.tile.tensor, col, s.head, sector_count(a.mask)});
          }
        } else {
          f(Req{request_of(e.dir), 0, 0, sm, e.tile.tensor, col, s.head,
                tile_sectors(amap_.bytes(e.tile, s.head, map), sector)});
        }
      }
      if (more) continue;
      s.busy = false;
      if (launched_ < blocks_) {
        start(s);
      } else {
        --running_;
      }
    }
    return true;
  }

  /// The kernel and head of the block launched last.
  [[nodiscard]] std::pair<std::size_t, std::uint64_t> launching() const { return {kernel_, (launched_ - 1) / xs_}; }

  /// Whether every block of the current kernel has been launched (the drain has begun).
  [[nodiscard]] bool all_launched() const { return launched_ >= blocks_; }

 private:
  struct Slot {
    std::uint64_t head = 0;
    BlockRecorder rec;
    std::size_t next = 0;
    bool busy = false;
  };
  [[nodiscard]] std::uint64_t amap_sector() const { return ctx_.hardware.l2.sector_bytes; }
  void begin_kernel() {
    const Kernel* k = kernels_[kernel_];
    const Occupancy occ = occupancy(k->launch(), ctx_.hardware.sm);
    xs_ = k->grid_x().count();
    blocks_ = xs_ * k->grid_heads();
    launched_ = 0;
    slots_.assign(std::min<std::uint64_t>(occ.concurrent, blocks_), Slot{});
    for (Slot& s : slots_) start(s);
    running_ = slots_.size();
  }
  void start(Slot& s) {
    const Kernel* k = kernels_[kernel_];
    const std::uint64_t b = launched_++;
    s.head = b / xs_;
    s.rec.reset(ctx_.problem.dtype);
    const Tiling g = k->grid_x();
    const std::uint64_t x = b % xs_;
    k->block(Span{x, 1, g.size(x), g.begin(x)}, Emitter(s.rec, Walk::each));
    s.next = 0;
    s.busy = true;
  }

  const std::vector<const Kernel*>& kernels_;
  const ScheduleContext& ctx_;
  const AddressMap& amap_;
  std::size_t kernel_ = 0;
  std::uint64_t xs_ = 0, blocks_ = 0, launched_ = 0;
  std::vector<Slot> slots_;
  std::size_t running_ = 0;
  std::vector<LineAccess> buf_;
};

/// Calls `f(req)` for every line request, in the order KernelRun sends them to the L2.
inline void each_request(const std::vector<const Kernel*>& kernels, const ScheduleContext& ctx,
                         const AddressMap& amap, const std::function<void(const Req&)>& f) {
  Stream s(kernels, ctx, amap);
  while (s.round(true, f)) {
  }
}

}  // namespace iosim::lab
