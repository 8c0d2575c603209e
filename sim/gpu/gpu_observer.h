// What the GPU model tells an observer as it runs (for teaching traces and per-wave figures): which
// block starts in which slot of which SM, and the L2's counters after each of a block's transfers.
// With an observer the model sends every transfer to the L2 before the next one (no batching across
// transfers), which changes no count, only the speed. Without one (the default) nothing is called.
#pragma once

#include <cstdint>
#include <string_view>

#include "sim/core/transfer.h"
#include "sim/memory/memory_level.h"

namespace iosim {

class GpuObserver {
 public:
  GpuObserver() = default;
  GpuObserver(const GpuObserver&) = delete;
  GpuObserver& operator=(const GpuObserver&) = delete;
  virtual ~GpuObserver() = default;

  /// A kernel starts: `concurrent` blocks run at once, on `sms` SMs. The L2's counters start from 0.
  virtual void on_kernel(std::string_view name, std::uint64_t blocks, std::uint64_t concurrent, std::uint64_t sms) = 0;
  /// Block `block` (launch order, from 0) of the current kernel starts in slot `slot`, on SM `sm`.
  virtual void on_block(std::uint64_t block, std::uint64_t slot, std::uint64_t sm) = 0;
  /// Block `block` made its next transfer (`tile`, `dir`); `l2` are the L2's counters after it.
  virtual void on_transfer(std::uint64_t block, const TileRef& tile, Direction dir, const LevelCounters& l2) = 0;
};

}  // namespace iosim
