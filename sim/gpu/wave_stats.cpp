#include "sim/gpu/wave_stats.h"

#include <algorithm>

namespace iosim {

TransferL2 transfer_l2(const LevelCounters& before, const LevelCounters& after) {
  TransferL2 t;
  t.read_sectors = (after.read_sectors - before.read_sectors) + (after.reduce_sectors - before.reduce_sectors);
  t.miss_sectors = after.read_miss_sectors - before.read_miss_sectors;
  t.write_sectors = after.write_sectors - before.write_sectors;
  return t;
}

void WaveStats::on_kernel(std::string_view name, std::uint64_t blocks, std::uint64_t concurrent, std::uint64_t) {
  concurrent_ = concurrent == 0 ? 1 : concurrent;
  KernelWaves k{std::string(name), {}};
  const std::uint64_t waves = (blocks + concurrent_ - 1) / concurrent_;
  for (std::uint64_t w = 0; w < waves; ++w) {
    const std::uint64_t first = w * concurrent_;
    k.waves.push_back({w, std::min(concurrent_, blocks - first), 0, 0, 0, 0, 0});
  }
  kernels_.push_back(std::move(k));
  last_ = {};
}

void WaveStats::on_block(std::uint64_t, std::uint64_t, std::uint64_t) {}

void WaveStats::on_transfer(std::uint64_t block, const TileRef& tile, Direction, const LevelCounters& l2) {
  const TransferL2 t = transfer_l2(last_, l2);
  last_ = l2;
  WaveL2& w = kernels_.back().waves.at(block / concurrent_);
  w.read_sectors += t.read_sectors;
  w.read_hit_sectors += t.hit_sectors();
  w.write_sectors += t.write_sectors;
  if (tile.tensor == Tensor::K || tile.tensor == Tensor::V) {
    w.kv_read_sectors += t.read_sectors;
    w.kv_read_hit_sectors += t.hit_sectors();
  }
}

}  // namespace iosim
