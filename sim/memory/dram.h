// The bottom of the hierarchy: HBM. It serves everything and counts the bytes, as the counters
// dram__bytes_read and dram__bytes_write do.
#pragma once

#include "sim/memory/memory_level.h"

namespace iosim {

class Dram final : public MemoryLevel {
 public:
  explicit Dram(std::uint32_t sector_bytes) : sector_bytes_(sector_bytes) {}

  void read(std::uint64_t, std::uint32_t mask, std::uint32_t) override { add(counters_.read_sectors, mask); }
  void write(std::uint64_t, std::uint32_t mask, std::uint32_t) override { add(counters_.write_sectors, mask); }
  void reduce(std::uint64_t, std::uint32_t mask, std::uint32_t) override {
    add(counters_.read_sectors, mask);
    add(counters_.write_sectors, mask);
  }
  void flush() override {}
  Bytes dirty_bytes() const override { return Bytes(0); }
  const LevelCounters& counters() const override { return counters_; }
  void reset_counters() override { counters_ = {}; }

  [[nodiscard]] Bytes read_bytes() const { return Bytes(counters_.read_sectors * sector_bytes_); }
  [[nodiscard]] Bytes write_bytes() const { return Bytes(counters_.write_sectors * sector_bytes_); }

 private:
  static void add(std::uint64_t& c, std::uint32_t mask) { c += sector_count(mask); }

  std::uint32_t sector_bytes_;
  LevelCounters counters_;
};

}  // namespace iosim
