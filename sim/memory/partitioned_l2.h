// An L2 split in two partitions, as on the A100, H100 and H200: each partition is half the cache and
// the home of half the lines (by a hash of the address); each SM is attached to one partition (SMs
// alternate: SM s to partition s mod 2, so that consecutive blocks, spread over the GPCs, land on
// both). A request names its SM (MemoryLevel), which decides the partition it asks. An SM's
// load goes to its own partition; a line homed in the other one is fetched through the fabric between
// them and kept in both (a copy in the near partition, the line in its home), so that a line read by
// SMs on both sides occupies twice its size. Stores and reductions go to the line's home and drop the
// copy in the other partition; copies are never dirty.
//
// What the hardware does is not published; this is the simplest design consistent with what was
// measured on an H200 (docs/validation.md): a buffer read once counts each sector once at the SMs'
// partitions (lts__t_sectors_srcunit_tex) and half of them again as fabric reads
// (lts__t_sectors_srcunit_ltcfabric), and data that every SM reads needs almost no fabric traffic.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "sim/memory/l2_cache.h"

namespace iosim {

class PartitionedL2 final : public MemoryLevel {
 public:
  /// Two partitions of `spec.capacity` / 2 each, with policies from `make_policy()`; `below` (DRAM)
  /// serves misses in a line's home and receives write-backs. It must outlive this. `index` is the
  /// partitions' (modulo for the GPU model's set samples, whose lines are already placed).
  PartitionedL2(const L2Spec& spec, const std::function<std::unique_ptr<Replacement>()>& make_policy,
                MemoryLevel& below, SetIndex index = SetIndex::hashed);

  /// The partition that is `line`'s home.
  [[nodiscard]] static std::uint32_t home(std::uint64_t line);
  /// For a cache of renamed lines (the GPU model's set samples, SetSample::home()): a line's home is
  /// bit 0 of line ÷ `lines_per_tag`, the home of the address it was renamed from, so that the
  /// sampled sets split their lines as the whole cache does.
  void set_renamed_home(std::uint64_t lines_per_tag) {
    renamed_ = true;
    per_tag_.set(lines_per_tag);
  }

  /// Counts the sectors read through the fabric per set of a sample indexed modulo (`per_set[line mod
  /// its size]`), each times `*weight` as it is then, for the fast replay's estimate of its sample's
  /// error; nullptr (the default) counts none.
  void tally_fabric(std::vector<double>* per_set, const double* weight) {
    fabric_per_set_ = per_set;
    fabric_weight_ = weight;
  }

  void read(std::uint64_t line, std::uint32_t mask, std::uint32_t sm) override;
  void prefetch(std::uint64_t line, Request r, std::uint32_t sm) override;
  void write(std::uint64_t line, std::uint32_t mask, std::uint32_t sm) override;
  void reduce(std::uint64_t line, std::uint32_t mask, std::uint32_t sm) override;
  void flush() override;
  void empty() override;
  Bytes dirty_bytes() const override;
  /// Dirty sectors in set `set` of both partitions.
  std::uint64_t dirty_sectors(std::uint64_t set) const override {
    return part_[0]->dirty_sectors(set) + part_[1]->dirty_sectors(set);
  }
  /// What the SMs asked (read/write/reduce sectors); as read_miss_sectors, what missed in the
  /// partition that was asked; the sectors made dirty (both partitions: only a line's home is ever
  /// dirty) and those read through the fabric from the far partition (fabric_read_sectors).
  const LevelCounters& counters() const override { return counters_; }
  void reset_counters() override;
  std::uint32_t partition_of(std::uint32_t sm) const override { return sm & 1u; }
  std::uint64_t content_changes() const override {
    return part_[0]->counters().content_changes() + part_[1]->counters().content_changes();
  }
  std::uint64_t content_changes(std::uint32_t partition) const override {
    return part_[partition & 1u]->counters().content_changes();
  }
  /// Both partitions' contents (L2Cache::digest_contents()).
  bool digest_contents(Digest& d) const override { return part_[0]->digest_contents(d) && part_[1]->digest_contents(d); }

 private:
  /// Below partition p: DRAM for lines homed in p, the other partition (through the fabric) for the rest.
  class Below final : public MemoryLevel {
   public:
    Below(PartitionedL2& owner, std::uint32_t self) : owner_(owner), self_(self) {}
    void read(std::uint64_t line, std::uint32_t mask, std::uint32_t sm) override;
    void write(std::uint64_t line, std::uint32_t mask, std::uint32_t sm) override;
    void reduce(std::uint64_t line, std::uint32_t mask, std::uint32_t sm) override;
    void flush() override {}
    Bytes dirty_bytes() const override { return Bytes(0); }
    const LevelCounters& counters() const override { return none_; }
    void reset_counters() override {}

   private:
    PartitionedL2& owner_;
    std::uint32_t self_;
    LevelCounters none_;
  };
  [[nodiscard]] std::uint32_t home_of(std::uint64_t line) const {
    return renamed_ ? static_cast<std::uint32_t>(per_tag_.div(line) & 1u) : home(line);
  }

  MemoryLevel& dram_;
  bool renamed_ = false;
  Divider per_tag_;
  std::array<Below, 2> below_;
  std::array<std::unique_ptr<L2Cache>, 2> part_;
  LevelCounters counters_;
  std::vector<double>* fabric_per_set_ = nullptr;
  const double* fabric_weight_ = nullptr;
};

}  // namespace iosim
