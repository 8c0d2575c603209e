// The L2's hits and misses per wave of a kernel (a GpuObserver): wave w is blocks [w·c, (w+1)·c) in
// launch order, c the blocks running at once. Each transfer is charged to the block that made it, so a
// wave's figures are what its own blocks asked of the L2, even where waves overlap in time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/gpu/gpu_observer.h"

namespace iosim {

struct WaveL2 {
  std::uint64_t wave = 0;
  std::uint64_t blocks = 0;
  std::uint64_t read_sectors = 0;       ///< loads and reductions asked of the L2
  std::uint64_t read_hit_sectors = 0;   ///< of those, found in the L2
  std::uint64_t kv_read_sectors = 0;    ///< the part that loads K or V
  std::uint64_t kv_read_hit_sectors = 0;
  std::uint64_t write_sectors = 0;
};

struct KernelWaves {
  std::string name;
  std::vector<WaveL2> waves;
};

/// The figures of one transfer from the L2's counters before and after it.
struct TransferL2 {
  std::uint64_t read_sectors = 0;  ///< loads and reductions
  std::uint64_t miss_sectors = 0;
  std::uint64_t write_sectors = 0;
  [[nodiscard]] std::uint64_t hit_sectors() const { return read_sectors - miss_sectors; }
};
[[nodiscard]] TransferL2 transfer_l2(const LevelCounters& before, const LevelCounters& after);

class WaveStats final : public GpuObserver {
 public:
  void on_kernel(std::string_view name, std::uint64_t blocks, std::uint64_t concurrent, std::uint64_t sms) override;
  void on_block(std::uint64_t block, std::uint64_t slot, std::uint64_t sm) override;
  void on_transfer(std::uint64_t block, const TileRef& tile, Direction dir, const LevelCounters& l2) override;

  /// One entry per kernel run, in order.
  [[nodiscard]] const std::vector<KernelWaves>& kernels() const { return kernels_; }

 private:
  std::vector<KernelWaves> kernels_;
  std::uint64_t concurrent_ = 1;
  LevelCounters last_;
};

}  // namespace iosim
