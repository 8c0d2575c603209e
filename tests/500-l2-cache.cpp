// The L2 model on traces worked by hand: hits, misses, evictions, write-backs, and the DRAM they cause.
#include <doctest/doctest.h>

#include <random>

#include "sim/memory/dram.h"
#include "sim/memory/l2_cache.h"
#include "sim/memory/set_scan.h"

using namespace iosim;

namespace {

/// 2 sets × 2 ways of 128-byte lines, 4 sectors of 32 bytes; line L maps to set L mod 2.
L2Spec tiny() { return L2Spec{Bytes(2 * 2 * 128), 128, 32, 2, 64}; }

constexpr std::uint32_t kAll = 0xF;

}  // namespace

SCENARIO("loads: cold misses fill sectors, hits do not go below") {
  Dram dram(32);
  L2Cache l2(tiny(), make_replacement("lru"), dram, SetIndex::modulo);
  WHEN("line 0 is read whole, then again, then one sector of line 2 (same set)") {
    l2.read(0, kAll, 0);
    l2.read(0, kAll, 0);
    l2.read(2, 0x1, 0);
    THEN("4 sectors miss, 4 hit, then 1 more misses") {
      CHECK(l2.counters().read_sectors == 9);
      CHECK(l2.counters().read_hit_sectors == 4);
      CHECK(l2.counters().read_miss_sectors == 5);
      CHECK(dram.read_bytes() == Bytes(5 * 32));
      CHECK(l2.counters().evicted_lines == 0);
    }
    AND_WHEN("the rest of line 2 is read") {
      l2.read(2, kAll, 0);
      THEN("only the 3 sectors it lacks come from DRAM") { CHECK(dram.read_bytes() == Bytes(8 * 32)); }
    }
  }
}

SCENARIO("LRU evicts the least recently used line of a full set, and writes back only dirty sectors") {
  Dram dram(32);
  L2Cache l2(tiny(), make_replacement("lru"), dram, SetIndex::modulo);
  GIVEN("set 0 holding line 0 (two sectors written) and line 2 (read)") {
    l2.write(0, 0x3, 0);
    l2.read(2, kAll, 0);
    WHEN("line 0 is used again and line 4 comes in") {
      l2.read(0, 0x1, 0);  // a hit on a written sector: no DRAM
      l2.read(4, kAll, 0);
      THEN("line 2, the least recently used and clean, is evicted without a write") {
        CHECK(l2.counters().evicted_lines == 1);
        CHECK(dram.write_bytes() == Bytes(0));
        CHECK(dram.read_bytes() == Bytes(8 * 32));
        CHECK(l2.dirty_bytes() == Bytes(2 * 32));
      }
      AND_WHEN("line 6 comes in") {
        l2.read(6, kAll, 0);
        THEN("line 0 goes, and its two dirty sectors are written back") {
          CHECK(l2.counters().evicted_lines == 2);
          CHECK(dram.write_bytes() == Bytes(2 * 32));
          CHECK(l2.counters().written_back_sectors == 2);
          CHECK(l2.dirty_bytes() == Bytes(0));
        }
      }
    }
  }
}

SCENARIO("FIFO ignores hits: the first line in goes first") {
  Dram dram(32);
  L2Cache l2(tiny(), make_replacement("fifo"), dram, SetIndex::modulo);
  l2.read(0, kAll, 0);
  l2.read(2, kAll, 0);
  l2.read(0, kAll, 0);  // a hit: LRU would now evict line 2
  l2.read(4, kAll, 0);  // FIFO evicts line 0
  l2.read(0, kAll, 0);  // so line 0 misses again
  CHECK(dram.read_bytes() == Bytes(16 * 32));
  Dram dram_lru(32);
  L2Cache lru(tiny(), make_replacement("lru"), dram_lru, SetIndex::modulo);
  for (std::uint64_t line : {0u, 2u, 0u, 4u, 0u}) lru.read(line, kAll, 0);
  CHECK(dram_lru.read_bytes() == Bytes(12 * 32));
  CHECK(make_replacement("plru") == nullptr);
}

SCENARIO("stores allocate without reading; reductions read what is absent") {
  Dram dram(32);
  L2Cache l2(tiny(), make_replacement("lru"), dram, SetIndex::modulo);
  l2.write(1, kAll, 0);
  CHECK(dram.read_bytes() == Bytes(0));
  CHECK(l2.counters().write_sectors == 4);
  l2.read(1, kAll, 0);  // the written sectors are valid: hits
  CHECK(dram.read_bytes() == Bytes(0));
  l2.reduce(3, 0x1, 0);  // an atomic add on an absent sector: read it, then it is dirty
  CHECK(l2.counters().reduce_sectors == 1);
  CHECK(dram.read_bytes() == Bytes(32));
  l2.reduce(3, 0x1, 0);  // present now
  CHECK(dram.read_bytes() == Bytes(32));
  CHECK(l2.dirty_bytes() == Bytes(5 * 32));
  WHEN("flushed") {
    l2.flush();
    THEN("every dirty sector is written once, and the lines stay, clean") {
      CHECK(dram.write_bytes() == Bytes(5 * 32));
      CHECK(l2.dirty_bytes() == Bytes(0));
      l2.read(1, kAll, 0);
      CHECK(dram.read_bytes() == Bytes(32));
      l2.flush();
      CHECK(dram.write_bytes() == Bytes(5 * 32));
    }
  }
  WHEN("invalidated") {
    l2.invalidate();
    THEN("it is empty and cold, and nothing was written") {
      CHECK(l2.dirty_bytes() == Bytes(0));
      l2.read(1, kAll, 0);
      CHECK(dram.read_bytes() == Bytes(5 * 32));
      CHECK(dram.write_bytes() == Bytes(0));
    }
  }
}

TEST_CASE("hashed sets: consecutive lines spread over the sets, strides of the cache size do not collide") {
  const L2Spec spec{Bytes(64 * 4 * 128), 128, 32, 4, 64};  // 64 sets × 4 ways
  Dram dram(32);
  L2Cache l2(spec, make_replacement("lru"), dram);
  // 256 lines = the capacity: a second pass hits everywhere.
  for (std::uint64_t line = 0; line < 256; ++line) l2.read(line, kAll, 0);
  for (std::uint64_t line = 0; line < 256; ++line) l2.read(line, kAll, 0);
  CHECK(l2.counters().read_hit_sectors == 256 * 4);
  // Lines 64 apart would all fall in one set with modulo indexing; hashed, 8 of them fit.
  Dram dram2(32);
  L2Cache l2b(spec, make_replacement("lru"), dram2);
  for (int pass = 0; pass < 2; ++pass) {
    for (std::uint64_t k = 0; k < 8; ++k) l2b.read(1000 + 64 * k, kAll, 0);
  }
  CHECK(l2b.counters().read_hit_sectors == 8 * 4);
}

TEST_CASE("bad L2 shapes are refused") {
  Dram dram(32);
  CHECK_THROWS(L2Cache(L2Spec{Bytes(64), 128, 32, 2, 64}, make_replacement("lru"), dram));
  CHECK_THROWS(L2Cache(tiny(), nullptr, dram));
}

TEST_CASE("a set's clock renumbers its ages before they reach the limit, keeping their order") {
  const LruReplacement lru;
  std::uint16_t ages[4] = {};
  std::uint16_t clock = 0;
  stamp(ages, 4, 2, clock);
  stamp(ages, 4, 0, clock);
  stamp(ages, 4, 2, clock);  // a hit under LRU
  CHECK(ages[0] == 2);
  CHECK(ages[2] == 3);
  CHECK(lru.victim(ages, 4) == 1);  // never filled
  stamp(ages, 4, 1, clock);
  CHECK(lru.victim(ages, 4) == 3);
  stamp(ages, 4, 3, clock);
  CHECK(lru.victim(ages, 4) == 0);  // the least recently used of a full set
  SUBCASE("at the limit") {
    const std::uint16_t top = kAgeLimit;
    ages[0] = top - 2;
    ages[1] = top;
    ages[2] = 7;
    ages[3] = top - 1;
    clock = top;
    stamp(ages, 4, 2, clock);  // 2 becomes the newest: 1, 2, 3, 4 renumbered, then 5
    CHECK(ages[2] == 5);
    CHECK(ages[0] == 2);
    CHECK(ages[3] == 3);
    CHECK(ages[1] == 4);
    CHECK(clock == 5);
    CHECK(lru.victim(ages, 4) == 0);
  }
  SUBCASE("a dropped way (age 0) comes first, and stays 0 through a renumbering") {
    ages[1] = 0;
    CHECK(lru.victim(ages, 4) == 1);
    clock = kAgeLimit;
    stamp(ages, 4, 0, clock);
    CHECK(ages[1] == 0);
    CHECK(ages[0] == 4);
    CHECK(lru.victim(ages, 4) == 1);
  }
  CHECK_FALSE(FifoReplacement{}.ages_on_hit());
  CHECK(lru.ages_on_hit());
}

TEST_CASE("the 16-way scans agree with the plain loops") {
  // Random sets of 16 tags and ages, with repeats and zeros, so that ties and misses both occur.
  std::mt19937_64 next(12345);
  for (int trial = 0; trial < 20000; ++trial) {
    std::uint32_t tags[16];
    std::uint16_t ages[16];
    const std::uint64_t range = trial % 3 == 0 ? 4 : kAgeLimit + 1;
    for (int w = 0; w < 16; ++w) {
      tags[w] = static_cast<std::uint32_t>(next() % 40);
      ages[w] = static_cast<std::uint16_t>(next() % range);
    }
    const auto tag = static_cast<std::uint32_t>(next() % 40);
    CHECK(set_scan::find(tags, tag, 16) == set_scan::find_plain(tags, tag, 16));
    CHECK(set_scan::oldest(ages, 16) == set_scan::oldest_plain(ages, 16));
    CHECK(set_scan::find(tags, tag, 12) == set_scan::find_plain(tags, tag, 12));
  }
  const std::uint32_t none[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  CHECK(set_scan::find(none, 0xFFFFFFFFu, 16) == 16);
  CHECK(set_scan::find(none, 16, 16) == 15);
  std::uint16_t old[16];
  for (int w = 0; w < 16; ++w) old[w] = static_cast<std::uint16_t>(kAgeLimit - w);
  CHECK(set_scan::oldest(old, 16) == 15);
}

TEST_CASE("a set's clock is its own: another set's traffic does not age it") {
  // Set 0 holds lines 0 and 2; a long stream through set 1 between their uses changes nothing there.
  Dram dram(32);
  L2Cache l2(tiny(), make_replacement("lru"), dram, SetIndex::modulo);
  l2.read(0, kAll, 0);
  l2.read(2, kAll, 0);
  for (std::uint64_t k = 0; k < 70000; ++k) l2.read(1 + 2 * (k % 3), 0x1, 0);  // three lines cycling in set 1
  l2.read(0, kAll, 0);  // hit: line 2 is now the oldest of set 0
  l2.read(4, kAll, 0);  // evicts line 2
  l2.read(0, 0x1, 0);   // still a hit
  const std::uint64_t before = dram.read_bytes().value;
  l2.read(2, 0x1, 0);  // a miss
  CHECK(dram.read_bytes().value == before + 32);
  CHECK(l2.counters().evicted_lines == 70000 - 2 + 1 + 1);
}
