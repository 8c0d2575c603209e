// Paged K/V: flash2's and flash3's forward (prefill) and flashdecode read K and V through a block table. The K/V
// elements are the contiguous layout's; the table's reads are, per block, the pages of each K/V tile it
// loads; the order of the pages changes no count.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include "sim/core/error.h"
#include "sim/core/paging.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

namespace {

Problem paged(Problem p, std::uint64_t page_size, PageOrder order = PageOrder::contiguous, std::uint64_t seed = 0) {
  p.page_size = page_size;
  p.page_order = order;
  p.page_seed = seed;
  return p;
}

/// Table entries one pass over every K/V tile of n_kv keys reads: a tile of whole pages reads
/// ⌈size / P⌉ of them (the last tile may be short), a tile within one page reads one.
std::uint64_t entries_per_kv_pass(std::uint64_t n_kv, std::uint64_t bc, std::uint64_t page) {
  std::uint64_t total = 0;
  for (std::uint64_t begin = 0; begin < n_kv; begin += bc) {
    const std::uint64_t size = std::min(bc, n_kv - begin);
    total += page <= bc ? (size + page - 1) / page : 1;
  }
  return total;
}

void check_same_counts(const ScheduleRun& a, const ScheduleRun& b) {
  for (Tensor t : kAllTensors) {
    CAPTURE(name(t));
    CHECK(reads(a, t) == reads(b, t));
    CHECK(writes(a, t) == writes(b, t));
  }
}

}  // namespace

TEST_CASE("the block table is an int32 tensor of one entry a page a K/V sequence, only when paged") {
  Problem p = problem(64, 64, 2, 8, 1000);
  p.kv_heads = 2;
  CHECK(tensor_elements(p, Tensor::BT) == 0);
  CHECK(tensor_elements(paged(p, 16), Tensor::BT) == 2ull * 2 * 63);  // ⌈1000 / 16⌉ pages
  CHECK(storage_type(Tensor::BT, DType::fp16) == DType::int32);
  CHECK(size_bytes(storage_type(Tensor::BT, DType::fp16)) == 4);
}

SCENARIO("flash2's forward over a paged cache") {
  GIVEN("batch 2, 4 query heads on 2 K/V heads, n = n_kv = 1024, d = 64, 128 × 128 tiles") {
    Problem p = problem(1024, 64, 2, 4);
    p.kv_heads = 2;
    const ScheduleRun flat = count("flash2", context(p, a100(), tiles(128, 128)));
    for (std::uint64_t page : {16u, 32u, 128u, 256u, 1024u}) {
      CAPTURE(page);
      const ScheduleRun r = count("flash2", context(paged(p, page), a100(), tiles(128, 128)));
      THEN("K and V move as in the contiguous layout") {
        CHECK(reads(r, Tensor::K) == reads(flat, Tensor::K));
        CHECK(reads(r, Tensor::V) == reads(flat, Tensor::V));
        CHECK(reads(r, Tensor::Q) == reads(flat, Tensor::Q));
      }
      THEN("each of the 2 × 4 × 8 blocks reads the table entries of its 8 K/V tiles") {
        const std::uint64_t per_tile = page <= 128 ? 128 / page : 1;
        CHECK(reads(r, Tensor::BT) == 2ull * 4 * 8 * 8 * per_tile);
        CHECK(writes(r, Tensor::BT) == 0);
        CHECK(reads(flat, Tensor::BT) == 0);
        // Each entry read from HBM is written into SRAM, 4 bytes (int32) each.
        const Traffic& sram = r.ledger.at(Level::sram, Tensor::BT);
        CHECK(sram.write_elements.value == reads(r, Tensor::BT));
        CHECK(r.ledger.at(Level::hbm, Tensor::BT).read_bytes.value == 4 * reads(r, Tensor::BT));
      }
    }
  }
  GIVEN("n_kv = 1000, whose last tile and last page are short") {
    const Problem p = problem(256, 32, 1, 1, 1000);
    for (std::uint64_t page : {16u, 32u, 64u, 256u}) {
      for (std::uint64_t bc : {64u, 128u}) {
        CAPTURE(page);
        CAPTURE(bc);
        if (page > bc && page % bc != 0) continue;
        const ScheduleRun r = count("flash2", context(paged(p, page), a100(), tiles(64, bc)));
        const ScheduleRun flat = count("flash2", context(p, a100(), tiles(64, bc)));
        CHECK(reads(r, Tensor::K) == reads(flat, Tensor::K));
        CHECK(reads(r, Tensor::BT) == 4 * entries_per_kv_pass(1000, bc, page));  // 4 Q tiles, one pass each
      }
    }
  }
  GIVEN("a causal prefill: each block reads the table entries of the tiles its rows see") {
    Problem p = problem(512, 64);
    p.causal = true;
    const ScheduleRun r = count("flash2", context(paged(p, 32), a100(), tiles(128, 128)));
    // Row block i sees K/V tiles 0..i: 1 + 2 + 3 + 4 = 10 tiles of 4 pages.
    CHECK(reads(r, Tensor::BT) == 10ull * 4);
  }
}

SCENARIO("flash3's forward over a paged cache reads the block table as flash2's forward does") {
  GIVEN("batch 2, 4 query heads on 2 K/V heads, d = 128, 128 × 128 tiles, on a Hopper GPU") {
    for (const bool causal : {false, true}) {
      for (const std::uint64_t n_kv : {1024u, 1000u, 1500u}) {
        Problem p = problem(1024, 128, 2, 4, n_kv);
        p.kv_heads = 2;
        p.causal = causal;
        const ScheduleRun flat = count("flash3", context(p, hopper(), tiles(128, 128)));
        for (std::uint64_t page : {16u, 64u, 128u, 256u}) {
          CAPTURE(causal);
          CAPTURE(n_kv);
          CAPTURE(page);
          const Problem q = paged(p, page, PageOrder::random, 3);
          const ScheduleRun f3 = count("flash3", context(q, hopper(), tiles(128, 128)));
          const ScheduleRun f2 = count("flash2", context(q, hopper(), tiles(128, 128)));
          THEN("K, V and Q move as in the contiguous layout") {
            CHECK(reads(f3, Tensor::K) == reads(flat, Tensor::K));
            CHECK(reads(f3, Tensor::V) == reads(flat, Tensor::V));
            CHECK(reads(f3, Tensor::Q) == reads(flat, Tensor::Q));
            CHECK(reads(flat, Tensor::BT) == 0);
          }
          THEN("the table's entries read are flash2's forward's, element for element, and none written") {
            CHECK(reads(f3, Tensor::BT) == reads(f2, Tensor::BT));
            CHECK(writes(f3, Tensor::BT) == 0);
            CHECK(f3.ledger.at(Level::hbm, Tensor::BT).read_bytes.value == 4 * reads(f3, Tensor::BT));
          }
          if (!causal) {
            THEN("each of the 2 × 4 × 8 blocks reads the entries of one pass over the K/V tiles") {
              CHECK(reads(f3, Tensor::BT) == 2ull * 4 * 8 * entries_per_kv_pass(n_kv, 128, page));
            }
          }
        }
      }
    }
  }
  GIVEN("a causal prefill with a sliding window: each block reads the entries of the tiles its rows see") {
    Problem p = problem(512, 64);
    p.causal = true;
    const ScheduleRun r = count("flash3", context(paged(p, 32), hopper(), tiles(128, 128)));
    // Row block i sees K/V tiles 0..i: 1 + 2 + 3 + 4 = 10 tiles of 4 pages.
    CHECK(reads(r, Tensor::BT) == 10ull * 4);
    p.window = 100;  // block i from the tile of key 128i − 99 (none before 0): tiles 0, 0–1, 1–2, 2–3
    const ScheduleRun w = count("flash3", context(paged(p, 32), hopper(), tiles(128, 128)));
    CHECK(reads(w, Tensor::BT) == 7ull * 4);
    CHECK(reads(w, Tensor::BT) == reads(count("flash2", context(paged(p, 32), hopper(), tiles(128, 128))), Tensor::BT));
  }
  GIVEN("a page size and tile that do not divide one another") {
    const Problem p = paged(problem(256, 64, 1, 1, 1024), 64);
    CHECK_THROWS_WITH_AS(count("flash3", context(p, hopper(), tiles(128, 96))),
                         doctest::Contains("--page-size 64 and flash3's K/V tile B_c = 96 must divide one another"),
                         InputError);
  }
}

SCENARIO("flashdecode over a paged cache") {
  GIVEN("one query, n_kv = 4096, d = 128, batch 2, 32 query heads on 8 K/V heads, 4 splits") {
    Problem p = problem(1, 128, 2, 32, 4096);
    p.kv_heads = 8;
    for (std::uint64_t page : {16u, 64u, 128u, 256u}) {
      CAPTURE(page);
      const Problem q = paged(p, page, PageOrder::random, 7);
      const ScheduleRun packed = count("flashdecode", ScheduleContext{q, a100(), {}, 4, {}});
      const ScheduleRun heads = count("flashdecode-heads", ScheduleContext{q, a100(), {}, 4, {}});
      const ScheduleRun flat = count("flashdecode", ScheduleContext{p, a100(), {}, 4, {}});
      THEN("K and V move as in the contiguous layout") {
        CHECK(reads(packed, Tensor::K) == reads(flat, Tensor::K));
        CHECK(reads(packed, Tensor::V) == reads(flat, Tensor::V));
      }
      THEN("packed, each sequence's 32 tiles are read once over the splits: 16 × 32 tiles of the table") {
        REQUIRE(packed.tiles.bc == 128);
        const std::uint64_t per_tile = page <= 128 ? 128 / page : 1;
        CHECK(reads(packed, Tensor::BT) == 16ull * 32 * per_tile);
        if (page <= 128) CHECK(reads(packed, Tensor::BT) == tensor_elements(q, Tensor::BT));
        CHECK(reads(heads, Tensor::BT) == 4 * reads(packed, Tensor::BT));  // once per query head
      }
    }
  }
}

TEST_CASE("the order of the pages changes no count") {
  Problem p = problem(300, 64, 2, 4, 3000);
  p.causal = true;
  for (const char* s : {"flash2", "flash3", "flashdecode"}) {
    CAPTURE(s);
    const HardwareSpec hw = hardware_for(s);
    const TileRequest t = tiles(std::string_view(s) == "flash3" ? 128 : 64, 128);
    const ScheduleRun in_order = count(s, context(paged(p, 64), hw, t));
    for (std::uint64_t seed : {1u, 2u, 99u}) {
      const ScheduleRun shuffled = count(s, context(paged(p, 64, PageOrder::random, seed), hw, t));
      check_same_counts(in_order, shuffled);
    }
  }
}

TEST_CASE("page sizes that are not powers of two, or that do not fit the tile, are refused") {
  const Problem p = problem(256, 64, 1, 1, 1024);
  CHECK(check(paged(p, 48)).find("--page-size must be a power of two (got 48)") != std::string::npos);
  CHECK(check(paged(p, 64)).empty());
  // B_c = 96 and P = 64: neither divides the other.
  CHECK_THROWS_WITH_AS(count("flash2", context(paged(p, 64), a100(), tiles(64, 96))),
                       doctest::Contains("--page-size 64 and flash2's K/V tile B_c = 96 must divide one another"),
                       InputError);
  CHECK_NOTHROW(count("flash2", context(paged(p, 32), a100(), tiles(64, 96))));  // 32 divides 96
}

TEST_CASE("--page-order: contiguous, random (the default seed) or a seed") {
  PageOrder o{};
  std::uint64_t seed = 0;
  REQUIRE(parse_page_order("random", o, seed));
  CHECK(o == PageOrder::random);
  CHECK(seed == kDefaultPageSeed);
  REQUIRE(parse_page_order("42", o, seed));
  CHECK(seed == 42);
  REQUIRE(parse_page_order("contiguous", o, seed));
  CHECK(o == PageOrder::contiguous);
  CHECK_FALSE(parse_page_order("shuffled", o, seed));
  CHECK_FALSE(parse_page_order("-3", o, seed));
  CHECK_FALSE(parse_page_order("", o, seed));
}

TEST_CASE("the block table's entries, as the paged kernels read them") {
  // 2 sequences (batch 2) of 300 keys in pages of 128: 3 pages each (the last one partly filled).
  const Problem p = paged(problem(300, 64, 2), 128);
  const std::uint64_t seqs = 2;
  SUBCASE("contiguous: sequence s's page k in slot 3s + k") {
    const BlockTable t(p);
    CHECK(t.entries(seqs) == std::vector<std::int32_t>{0, 1, 2, 3, 4, 5});
  }
  SUBCASE("random: each sequence's own slots, each once, in the order slot() gives") {
    const Problem r = paged(p, 128, PageOrder::random, 7);
    const BlockTable t(r);
    const std::vector<std::int32_t> e = t.entries(seqs);
    REQUIRE(e.size() == 6);
    for (std::uint64_t s = 0; s < seqs; ++s) {
      std::vector<std::int32_t> row(e.begin() + static_cast<std::ptrdiff_t>(3 * s), e.begin() + static_cast<std::ptrdiff_t>(3 * s + 3));
      for (std::uint64_t k = 0; k < 3; ++k) CHECK(row[k] == static_cast<std::int32_t>(t.slot(s, k)));
      std::sort(row.begin(), row.end());
      const auto first = static_cast<std::int32_t>(3 * s);
      CHECK(row == std::vector<std::int32_t>{first, first + 1, first + 2});
    }
  }
}
