// Grouped-query attention and decoding: what each schedule re-reads, and split-KV decoding.
#include <doctest/doctest.h>

#include "sim/schedule/defaults.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

namespace {

Problem gqa(std::uint64_t n, std::uint64_t n_kv, std::uint64_t d, std::uint64_t batch, std::uint64_t heads,
            std::uint64_t kv_heads) {
  Problem p = problem(n, d, batch, heads, n_kv);
  p.kv_heads = kv_heads;
  return p;
}

}  // namespace

TEST_CASE("kv_heads must divide heads") {
  CHECK(check(gqa(64, 64, 64, 1, 32, 8)).empty());
  CHECK(check(gqa(64, 64, 64, 1, 32, 6)).find("kv_heads (6) must divide heads (32)") != std::string::npos);
  CHECK(gqa(64, 64, 64, 1, 32, 8).group() == 4);
  CHECK(problem(64, 64, 1, 32).group() == 1);
}

TEST_CASE("grouped-query attention: per-head schedules re-read K and V once per query head") {
  const Problem p = gqa(2048, 2048, 128, 2, 32, 8);  // 4 query heads per K/V head
  CHECK(tensor_elements(p, Tensor::K) == 2ull * 8 * 2048 * 128);
  CHECK(tensor_elements(p, Tensor::Q) == 2ull * 32 * 2048 * 128);
  const ScheduleRun f2 = count("flash2", context(p, a100(), tiles(128, 64)));
  // Each of the 32 query heads' 16 Q tiles reads its K/V head in full: 4 × 16 reads of every element.
  CHECK(reads(f2, Tensor::K) == 4 * 16 * tensor_elements(p, Tensor::K));
  const ScheduleRun naive = count("naive", context(p));
  CHECK(reads(naive, Tensor::K) == 4 * tensor_elements(p, Tensor::K));
  // Multi-query attention: every query head shares one K/V head.
  const ScheduleRun mqa = count("flash2", context(gqa(2048, 2048, 128, 2, 32, 1), a100(), tiles(128, 64)));
  CHECK(reads(mqa, Tensor::K) == reads(f2, Tensor::K));
}

TEST_CASE("FlashAttention-2's split heuristic") {
  // Enough blocks to fill 80% of the slots: no split.
  CHECK(fa2_num_splits(212, 264, 256) == 1);
  // 32 blocks on 264 slots, 256 K/V tiles: efficiency peaks near 8 splits; the fewest within 85% win.
  const std::uint64_t s = fa2_num_splits(32, 264, 256);
  CHECK(s > 1);
  CHECK(s <= 8);
  // Never more splits than tiles.
  CHECK(fa2_num_splits(1, 264, 3) <= 3);
}

SCENARIO("split-KV decoding") {
  GIVEN("one query per head, 32 query heads on 8 K/V heads, 32,768 keys, d = 128, on an H200-sized GPU") {
    HardwareSpec hw = a100();
    hw.sm.count = 132;
    const Problem p = gqa(1, 32768, 128, 4, 32, 8);
    WHEN("split 8 ways") {
      ScheduleContext ctx = context(p, hw);
      ctx.splits = 8;
      const ScheduleRun r = count("flashdecode", ctx);
      const std::uint64_t kvh = 4 * 8, rows = 4;  // a packed block holds the group's 4 query heads
      THEN("K and V are read once, Q once per split, and partials cross HBM once each way") {
        CHECK(r.tiles == TileShape{64, 128});
        CHECK(reads(r, Tensor::K) == tensor_elements(p, Tensor::K));
        CHECK(reads(r, Tensor::V) == tensor_elements(p, Tensor::V));
        CHECK(reads(r, Tensor::Q) == kvh * 8 * rows * 128);
        CHECK(writes(r, Tensor::Opart) == kvh * 8 * rows * 128);
        CHECK(reads(r, Tensor::Opart) == kvh * 8 * rows * 128);
        CHECK(writes(r, Tensor::Lpart) == kvh * 8 * rows);
        CHECK(writes(r, Tensor::O) == tensor_elements(p, Tensor::O));
        CHECK(writes(r, Tensor::L) == tensor_elements(p, Tensor::L));
        CHECK(r.variant == "split");
        // The count sits at the lower bound: inputs once, outputs once, plus 0.3% of partials.
        CHECK(r.lower_ratio() == doctest::Approx(1.0).epsilon(0.01));
      }
    }
    WHEN("not split") {
      ScheduleContext ctx = context(p, hw);
      ctx.splits = 1;
      const ScheduleRun r = count("flashdecode", ctx);
      THEN("no partials, O written directly") {
        CHECK(reads(r, Tensor::Opart) == 0);
        CHECK(writes(r, Tensor::O) == tensor_elements(p, Tensor::O));
        CHECK(reads(r, Tensor::K) == tensor_elements(p, Tensor::K));
      }
    }
    WHEN("the heuristic chooses") {
      const ScheduleRun r = count("flashdecode", context(p, hw));
      THEN("it says how many splits, and why") {
        REQUIRE(!r.notes.empty());
        CHECK(r.notes.back().find("K/V splits (FlashAttention-2's heuristic for 32 blocks on 132 SMs)") !=
              std::string::npos);
      }
    }
    WHEN("compared with flash2, which keeps one block per query head") {
      const ScheduleRun f2 = count("flash2", context(p, hw));
      THEN("flash2 reads K and V once per query head: 4× the cache") {
        CHECK(reads(f2, Tensor::K) == 4 * tensor_elements(p, Tensor::K));
      }
    }
  }
  GIVEN("more splits asked than K/V tiles") {
    ScheduleContext ctx = context(gqa(1, 300, 64, 1, 1, 1));
    ctx.splits = 100;
    const ScheduleRun r = count("flashdecode", ctx);
    THEN("the splits are capped at the tiles, and a note says so") {
      CHECK(reads(r, Tensor::Q) == 2 * 64);  // 300 keys in tiles of 256: 2 splits
      CHECK(r.notes.front().find("100 splits asked") != std::string::npos);
    }
  }
}
