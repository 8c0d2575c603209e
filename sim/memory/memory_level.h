// A level of the memory hierarchy below SRAM (the L2, DRAM), behind one interface. Requests are by
// line with a mask of the line's sectors; a level forwards what it cannot serve to the level below.
#pragma once

#include <array>
#include <cstdint>
#include <utility>

#include "sim/core/digest.h"
#include "sim/core/units.h"

namespace iosim {

/// Sectors set in a mask of up to 8 sectors. A table: the default build targets x86-64 without the
/// popcount instruction, where std::popcount is a library call on the model's hottest path.
[[nodiscard]] inline std::uint64_t sector_count(std::uint32_t mask) {
  static constexpr std::array<std::uint8_t, 256> kBits = [] {
    std::array<std::uint8_t, 256> t{};
    for (std::size_t i = 0; i < t.size(); ++i) t[i] = static_cast<std::uint8_t>((i & 1) + t[i / 2]);
    return t;
  }();
  return kBits[mask & 0xFFu];
}

/// Sector-level traffic a level received (requests) or caused below it.
struct LevelCounters {
  std::uint64_t read_sectors = 0;    ///< sectors asked for by loads
  std::uint64_t write_sectors = 0;   ///< sectors written by stores
  std::uint64_t reduce_sectors = 0;  ///< sectors of atomic reductions (read-modify-write at this level)
  std::uint64_t read_hit_sectors = 0;
  std::uint64_t read_miss_sectors = 0;  ///< loads and reductions that went below
  std::uint64_t evicted_lines = 0;
  std::uint64_t written_back_sectors = 0;  ///< dirty sectors written below on eviction or flush
  std::uint64_t dirtied_sectors = 0;  ///< sectors a store or reduction made dirty that were not: each is written back once, later
  std::uint64_t filled_lines = 0;   ///< lines allocated (a miss, or a store to an absent line)
  std::uint64_t dropped_lines = 0;  ///< stale copies removed (PartitionedL2)
  /// Sectors read through the fabric from the far partition (PartitionedL2;
  /// lts__t_sectors_srcunit_ltcfabric_op_read)
  std::uint64_t fabric_read_sectors = 0;

  /// What changed the contents: lines filled or dropped, sectors filled (misses), sectors made dirty.
  /// Unchanged across a run of requests iff every request of it hit, with its sectors valid (and
  /// dirty, for stores): the run changed no line's contents, only, for LRU, the ages.
  [[nodiscard]] std::uint64_t content_changes() const {
    return filled_lines + dropped_lines + read_miss_sectors + dirtied_sectors;
  }

  /// A value type: what a run of requests added is the counters after it minus those before.
  LevelCounters& operator+=(const LevelCounters& o) { return apply(o, 1); }
  LevelCounters& operator-=(const LevelCounters& o) { return apply(o, -1); }
  friend LevelCounters operator+(LevelCounters a, const LevelCounters& b) { return a += b; }
  friend LevelCounters operator-(LevelCounters a, const LevelCounters& b) { return a -= b; }
  friend bool operator==(const LevelCounters&, const LevelCounters&) = default;

 private:
  LevelCounters& apply(const LevelCounters& o, int sign) {
    for (auto [mine, theirs] : {std::pair{&read_sectors, o.read_sectors}, {&write_sectors, o.write_sectors},
                                {&reduce_sectors, o.reduce_sectors}, {&read_hit_sectors, o.read_hit_sectors},
                                {&read_miss_sectors, o.read_miss_sectors}, {&evicted_lines, o.evicted_lines},
                                {&written_back_sectors, o.written_back_sectors}, {&dirtied_sectors, o.dirtied_sectors},
                                {&filled_lines, o.filled_lines}, {&dropped_lines, o.dropped_lines},
                                {&fabric_read_sectors, o.fabric_read_sectors}}) {
      *mine = sign > 0 ? *mine + theirs : *mine - theirs;
    }
    return *this;
  }
};

/// The `sm` of the requests no SM makes: a cache's write-backs of dirty sectors.
inline constexpr std::uint32_t kNoSm = ~std::uint32_t{0};

/// What a request to a level does.
enum class Request : std::uint8_t { read, write, reduce };

class MemoryLevel {
 public:
  MemoryLevel() = default;
  MemoryLevel(const MemoryLevel&) = delete;
  MemoryLevel& operator=(const MemoryLevel&) = delete;
  virtual ~MemoryLevel() = default;

  /// Every request names the SM that makes it (`sm`, 0 to the GPU's SM count − 1): a level whose
  /// answer depends on where a request comes from (a partitioned L2, where an SM asks its own
  /// partition first) routes by it, and every level passes it on to the level below.
  ///
  /// Loads of the sectors in `mask` (bit s = sector s) of line `line` (a line-sized address).
  virtual void read(std::uint64_t line, std::uint32_t mask, std::uint32_t sm) = 0;
  /// Stores of whole sectors: no read of the old contents.
  virtual void write(std::uint64_t line, std::uint32_t mask, std::uint32_t sm) = 0;
  /// Atomic reductions: the sectors are read (from below if absent), added to and left dirty.
  virtual void reduce(std::uint64_t line, std::uint32_t mask, std::uint32_t sm) = 0;
  /// read(), write() or reduce(), as `r` says.
  void request(Request r, std::uint64_t line, std::uint32_t mask, std::uint32_t sm) {
    switch (r) {
      case Request::read: read(line, mask, sm); break;
      case Request::write: write(line, mask, sm); break;
      case Request::reduce: reduce(line, mask, sm); break;
    }
  }
  /// A hint that SM `sm` is about to make request `r` of `line`: a model may bring the state it will
  /// look up into the host CPU's cache. It changes no count; it only hides the simulator's own memory
  /// latency.
  virtual void prefetch(std::uint64_t /*line*/, Request /*r*/, std::uint32_t /*sm*/) {}
  /// Writes every dirty sector below, leaving the contents clean and resident.
  virtual void flush() = 0;
  /// Writes every dirty sector below, then drops every line: the empty level a profiler's cache flush
  /// leaves. A level that holds nothing: flush() alone.
  virtual void empty() { flush(); }
  /// Bytes this level holds dirty (not yet written below).
  [[nodiscard]] virtual Bytes dirty_bytes() const = 0;
  [[nodiscard]] virtual const LevelCounters& counters() const = 0;
  virtual void reset_counters() = 0;
  /// LevelCounters::content_changes() of every cache in this level (both partitions of a
  /// partitioned L2): unchanged across requests that all hit.
  [[nodiscard]] virtual std::uint64_t content_changes() const { return counters().content_changes(); }
  /// The partition whose cache serves SM `sm`'s loads (0 for a level of one partition).
  [[nodiscard]] virtual std::uint32_t partition_of(std::uint32_t /*sm*/) const { return 0; }
  /// content_changes() of the cache of `partition` (partition_of(); all of it when it has one).
  [[nodiscard]] virtual std::uint64_t content_changes(std::uint32_t /*partition*/) const { return content_changes(); }
  /// Dirty sectors in set `set` of this level's cache (every partition's): 0 for a level without sets.
  [[nodiscard]] virtual std::uint64_t dirty_sectors(std::uint64_t /*set*/) const { return 0; }
  /// Adds to `d` everything of this level's state that decides what later requests will cause (not
  /// its counters): two levels with equal digests, given the same requests, count the same from then
  /// on. False (nothing added) for a level that cannot say.
  virtual bool digest_contents(Digest& /*d*/) const { return false; }
};

}  // namespace iosim
