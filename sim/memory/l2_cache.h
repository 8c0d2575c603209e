// The L2: set-associative, lines of 128 bytes made of 32-byte sectors, valid and dirty state per
// sector, write-back. Loads fill only the sectors they ask for; stores allocate the line without
// reading (whole sectors are written); atomic reductions are done here, reading what is absent.
// Evicting a line writes its dirty sectors below. Counters are named after what Nsight Compute reads:
// requests in sectors from the SMs (lts__t_sectors_srcunit_tex_op_{read,write,red}); what reaches DRAM
// is the level below's business.
//
// Addresses are hashed to sets, as the hardware hashes addresses across its slices (the hash here is
// not NVIDIA's, which is unpublished): consecutive lines fill consecutive sets, and each span of
// `sets` lines is rotated by a hash of its number. SetIndex::modulo is there for tests that work
// traces by hand.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/core/aligned_vector.h"
#include "sim/core/hardware.h"
#include "sim/memory/divider.h"
#include "sim/memory/memory_level.h"
#include "sim/memory/replacement.h"

namespace iosim {

enum class SetIndex : std::uint8_t { hashed, modulo };

class L2Cache final : public MemoryLevel {
 public:
  /// `below` receives misses and write-backs; it must outlive the cache.
  L2Cache(const L2Spec& spec, std::unique_ptr<Replacement> policy, MemoryLevel& below,
          SetIndex index = SetIndex::hashed);

  void read(std::uint64_t line, std::uint32_t mask, std::uint32_t sm) override;
  void prefetch(std::uint64_t line, Request r, std::uint32_t sm) override;
  void write(std::uint64_t line, std::uint32_t mask, std::uint32_t sm) override;
  void reduce(std::uint64_t line, std::uint32_t mask, std::uint32_t sm) override;
  void flush() override;
  void empty() override {
    flush();
    invalidate();
  }
  Bytes dirty_bytes() const override;
  std::uint64_t dirty_sectors(std::uint64_t set) const override;
  const LevelCounters& counters() const override { return counters_; }
  void reset_counters() override { counters_ = {}; }
  /// Set by set: under a policy that reads only the ages' order (Replacement::order_only()), the
  /// set's lines (tag and sector masks) oldest first; else every way's tag, age and masks and the
  /// set's clock, as they lie.
  bool digest_contents(Digest& d) const override;

  /// Empties the cache (a cold start), writing nothing below: the caller flushes first if it must.
  void invalidate();
  /// Removes `line` if present (its dirty sectors written below first): a copy made stale by a write
  /// elsewhere. Its way is the first to be filled next. Counts nothing.
  void drop(std::uint64_t line);

  /// The set that holds `line`, and a hint to bring that set's state into the host's cache (what
  /// prefetch() does, split so that caches of one shape can share the first half).
  [[nodiscard]] std::uint64_t set_of(std::uint64_t line) const { return place(line).set; }
  void prefetch_set(std::uint64_t set) const {
    __builtin_prefetch(tags(set));
    __builtin_prefetch(ages(set));
  }

  /// The set of `line` in a hashed cache of `sets` sets: what place() computes, for callers that
  /// sample sets without building the cache (sim/gpu/set_sample.h).
  [[nodiscard]] static std::uint64_t hashed_set(std::uint64_t line, std::uint64_t sets);
  /// The rotation of span `tag` (lines [tag × sets, (tag + 1) × sets)) in a hashed cache of `sets`
  /// sets: the set of the span's first line (hashed_set(tag × sets, sets)).
  [[nodiscard]] static std::uint64_t span_rotation(std::uint64_t tag, std::uint64_t sets);
  /// Lines held by a cache of `spec`'s shape: its sets.
  [[nodiscard]] static std::uint64_t sets_of(const L2Spec& spec) {
    return spec.capacity.value / (std::uint64_t{spec.line_bytes} * spec.ways);
  }

  [[nodiscard]] std::uint64_t sets() const { return sets_; }
  [[nodiscard]] std::uint32_t ways() const { return ways_; }
  [[nodiscard]] std::uint32_t sectors_per_line() const { return sectors_; }

 private:
  static constexpr std::uint32_t kEmpty = ~std::uint32_t{0};

  /// The set of `line`, and the tag that tells `line` apart from the other lines of that set.
  struct Place {
    std::uint64_t set;
    std::uint32_t tag;
  };
  [[nodiscard]] Place place(std::uint64_t line) const;
  [[nodiscard]] std::uint64_t line_of(std::uint64_t set, std::uint32_t tag) const;
  /// One set's state is its tags (kEmpty where free), its ways' ages then their sector masks (valid
  /// in the low byte, dirty in the high one), and its clock. With 16 ways the tags are one host cache
  /// line and the ages and masks another, so a lookup misses the host's caches at most twice (the
  /// clocks, 2 bytes a set, stay cached).
  [[nodiscard]] std::uint32_t* tags(std::uint64_t set) { return &tags_[set * ways_]; }
  [[nodiscard]] const std::uint32_t* tags(std::uint64_t set) const { return &tags_[set * ways_]; }
  [[nodiscard]] std::uint16_t* ages(std::uint64_t set) { return &meta_[set * 2 * ways_]; }
  [[nodiscard]] const std::uint16_t* ages(std::uint64_t set) const { return &meta_[set * 2 * ways_]; }
  [[nodiscard]] std::uint16_t* masks(std::uint64_t set) { return ages(set) + ways_; }
  [[nodiscard]] const std::uint16_t* masks(std::uint64_t set) const { return ages(set) + ways_; }
  /// The way of the line at `at`, filled (after evicting) if absent, touched if present.
  std::uint32_t way_for(const Place& at);
  void write_back(std::uint64_t set, std::uint32_t way);

  std::uint64_t sets_;
  Divider by_sets_;  ///< n ÷ sets_ without a hardware division (the model's hot path)
  std::uint32_t ways_;
  std::uint32_t sectors_;
  std::uint32_t sector_bytes_;
  SetIndex index_;
  std::unique_ptr<Replacement> policy_;
  MemoryLevel* below_;
  AlignedVector<std::uint32_t> tags_;  ///< line ÷ sets, kEmpty when free; ways_ per set
  AlignedVector<std::uint16_t> meta_;  ///< 2 × ways_ per set: ages, then sector masks
  std::vector<std::uint16_t> clocks_;  ///< per set: the newest age it stamped
  LevelCounters counters_;
};

}  // namespace iosim
