// The L2 in two partitions (sim/memory/partitioned_l2.h) on traces worked by hand: a line's home, the
// copy its far readers keep, the fabric reads that fill it, writes that go home and drop the copy;
// and random replacement, which keeps part of a cyclic working set larger than the cache.
#include <doctest/doctest.h>

#include <random>
#include <vector>

#include "sim/memory/dram.h"
#include "sim/memory/l2_cache.h"
#include "sim/memory/partitioned_l2.h"

using namespace iosim;

namespace {

/// 8 lines in all: two partitions of 2 sets × 2 ways of 128-byte lines, 4 sectors of 32 bytes.
L2Spec small() { return L2Spec{Bytes(2 * 2 * 2 * 128), 128, 32, 2, 64, 2}; }

constexpr std::uint32_t kAll = 0xF;

auto lru() {
  return [] { return make_replacement("lru"); };
}

/// The first line homed in partition `p`.
std::uint64_t homed_in(std::uint32_t p) {
  for (std::uint64_t line = 0;; ++line) {
    if (PartitionedL2::home(line) == p) return line;
  }
}

}  // namespace

TEST_CASE("partitions: the hash gives each partition about half of the lines") {
  int in0 = 0;
  for (std::uint64_t line = 0; line < 100000; ++line) in0 += PartitionedL2::home(line) == 0 ? 1 : 0;
  CHECK(in0 > 49000);
  CHECK(in0 < 51000);
}

SCENARIO("a line read from its home partition: DRAM once, no fabric") {
  Dram dram(32);
  PartitionedL2 l2(small(), lru(), dram);
  const std::uint64_t line = homed_in(0);
  l2.read(line, kAll, 0);
  l2.read(line, kAll, 0);
  CHECK(l2.counters().read_sectors == 8);
  CHECK(l2.counters().read_miss_sectors == 4);
  CHECK(l2.counters().fabric_read_sectors == 0);
  CHECK(dram.read_bytes() == Bytes(4 * 32));
}

SCENARIO("a line read from the far partition: fetched through the fabric, then kept on both sides") {
  Dram dram(32);
  PartitionedL2 l2(small(), lru(), dram);
  const std::uint64_t line = homed_in(1);
  WHEN("partition 0 reads it twice, then partition 1 once") {
    l2.read(line, kAll, 0);
    l2.read(line, kAll, 0);
    l2.read(line, kAll, 1);
    THEN("the SMs asked 12 sectors; 4 crossed the fabric once; DRAM served them once") {
      CHECK(l2.counters().read_sectors == 12);
      CHECK(l2.counters().read_miss_sectors == 4);  // only the first read missed where it asked
      CHECK(l2.counters().fabric_read_sectors == 4);
      CHECK(dram.read_bytes() == Bytes(4 * 32));
    }
  }
}

SCENARIO("a store goes to the line's home and drops the far copy; the flush writes it once") {
  Dram dram(32);
  PartitionedL2 l2(small(), lru(), dram);
  const std::uint64_t line = homed_in(1);
  l2.read(line, kAll, 0);  // a copy in partition 0
  l2.write(line, 0x3, 0);  // two sectors, written in partition 1; the copy is dropped
  CHECK(l2.dirty_bytes() == Bytes(2 * 32));
  l2.read(line, kAll, 0);  // the copy is gone: through the fabric again, but DRAM is not read again
  CHECK(l2.counters().fabric_read_sectors == 8);
  CHECK(dram.read_bytes() == Bytes(4 * 32));
  l2.flush();
  CHECK(dram.write_bytes() == Bytes(2 * 32));
  CHECK(l2.dirty_bytes() == Bytes(0));
  l2.flush();  // nothing dirty is left to write
  CHECK(dram.write_bytes() == Bytes(2 * 32));
}

SCENARIO("reductions are done in the line's home") {
  Dram dram(32);
  PartitionedL2 l2(small(), lru(), dram);
  const std::uint64_t line = homed_in(0);
  l2.reduce(line, 0x1, 1);
  CHECK(l2.counters().reduce_sectors == 1);
  CHECK(l2.counters().fabric_read_sectors == 0);  // not a load: nothing is copied to partition 1
  CHECK(dram.read_bytes() == Bytes(32));
  CHECK(l2.dirty_bytes() == Bytes(32));
}

SCENARIO("a line read from both sides takes room in both: a working set that one L2 of the same size holds spills") {
  // 6 lines, half homed on each side, read in turn by both partitions: 6 homes + 3 copies per side
  // would need 12 lines of room in the worst case; 8 lines of L2 are not enough, one unified 8-line
  // L2 would be (each line once), so the partitioned L2 goes to DRAM again on the second round.
  std::vector<std::uint64_t> lines;
  for (std::uint64_t line = 0; lines.size() < 6; ++line) lines.push_back(line);
  Dram dram2(32), dram1(32);
  PartitionedL2 two(small(), lru(), dram2);
  L2Spec unified = small();
  unified.partitions = 1;
  L2Cache one(unified, make_replacement("lru"), dram1, SetIndex::modulo);
  for (int round = 0; round < 2; ++round) {
    for (std::uint32_t side = 0; side < 2; ++side) {
      for (std::uint64_t line : lines) {
        two.read(line, kAll, side);
        one.read(line, kAll, 0);
      }
    }
  }
  CHECK(dram1.read_bytes() == Bytes(6 * 4 * 32));  // compulsory only
  CHECK(dram2.read_bytes() > dram1.read_bytes());
  // Invariant: DRAM never serves more than the SMs asked for.
  CHECK(dram2.read_bytes().value <= two.counters().read_sectors * 32);
}

SCENARIO("random replacement keeps part of a cyclic working set larger than the cache; LRU and FIFO keep none") {
  // One set of 2 ways (modulo indexing): lines 0, 2, 4 cycled through set 0.
  const L2Spec spec{Bytes(2 * 2 * 128), 128, 32, 2, 64, 1};
  auto misses = [&](const char* policy) {
    Dram dram(32);
    L2Cache l2(spec, make_replacement(policy), dram, SetIndex::modulo);
    for (int round = 0; round < 50; ++round) {
      for (std::uint64_t line : {0u, 2u, 4u}) l2.read(line, kAll, 0);
    }
    return l2.counters().read_miss_sectors;
  };
  const std::uint64_t all = 50 * 3 * 4;
  CHECK(misses("lru") == all);
  CHECK(misses("fifo") == all);
  CHECK(misses("random") < all * 9 / 10);
  CHECK(misses("random") > 3 * 4);  // and not a cache of infinite size
}

TEST_CASE("prefetch hints change no count, whatever they name") {
  // The same random stream of loads, stores and reductions from both partitions, on a 16-way L2 (the
  // SSE2 scans) and a 2-way one, with hints (right, and for lines never requested) and without.
  for (const L2Spec spec : {L2Spec{Bytes(2 * 8 * 16 * 128), 128, 32, 16, 64, 2}, small()}) {
    Dram plain_dram(32), hinted_dram(32);
    PartitionedL2 plain(spec, lru(), plain_dram), hinted(spec, lru(), hinted_dram);
    std::mt19937_64 next(99);
    for (int i = 0; i < 20000; ++i) {
      const std::uint64_t line = next() % 700;
      const auto mask = static_cast<std::uint32_t>(1 + next() % 15);
      const auto requester = static_cast<std::uint32_t>(next() % 2);
      const auto r = static_cast<Request>(next() % 3);
      hinted.prefetch(line, r, requester);
      hinted.prefetch(next() % 700, Request::write, 1 - requester);
      plain.request(r, line, mask, requester);
      hinted.request(r, line, mask, requester);
    }
    plain.flush();
    hinted.flush();
    CHECK(hinted_dram.read_bytes() == plain_dram.read_bytes());
    CHECK(hinted_dram.write_bytes() == plain_dram.write_bytes());
    CHECK(hinted.counters().fabric_read_sectors == plain.counters().fabric_read_sectors);
    CHECK(hinted.counters().read_miss_sectors == plain.counters().read_miss_sectors);
    CHECK(plain.counters().read_miss_sectors > 0);
  }
}

SCENARIO("a request's SM picks its partition: SMs alternate, SM s on partition s mod 2") {
  Dram dram(32);
  PartitionedL2 l2(small(), lru(), dram);
  CHECK(l2.partition_of(0) == 0);
  CHECK(l2.partition_of(131) == 1);
  const std::uint64_t line = homed_in(1);
  l2.read(line, kAll, 2);  // partition 0: through the fabric, a copy kept there
  l2.read(line, kAll, 4);  // partition 0 again: the copy hits
  CHECK(l2.counters().fabric_read_sectors == 4);
  CHECK(l2.counters().read_miss_sectors == 4);
  l2.read(line, kAll, 3);  // partition 1, the line's home: a hit, no fabric
  CHECK(l2.counters().fabric_read_sectors == 4);
  CHECK(l2.counters().read_miss_sectors == 4);
}

SCENARIO("the sectors made dirty are counted once, in the line's home, whoever stores") {
  Dram dram(32);
  PartitionedL2 l2(small(), lru(), dram);
  const std::uint64_t line = homed_in(0);
  l2.write(line, 0x3, 1);   // two sectors from partition 1's side, dirty in partition 0
  l2.write(line, 0x3, 0);   // already dirty
  l2.reduce(line, 0x4, 1);  // a third
  CHECK(l2.counters().dirtied_sectors == 3);
  std::uint64_t in_sets = 0;  // the line's set, wherever it is: every dirty sector is in some set
  for (std::uint64_t set = 0; set < 2; ++set) in_sets += l2.dirty_sectors(set);
  CHECK(in_sets == 3);
  CHECK(l2.dirty_bytes() == Bytes(3 * 32));
}
