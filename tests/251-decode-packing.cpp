// Grouped-query decoding, packed against per query head: flashdecode puts a group's query heads in the
// rows of one block (FlashAttention-2's seqlen_q/group swap), flashdecode-heads keeps one block row set
// per query head. Closed forms for every tensor of both, and the split count both take from one
// function (flashdecode_splits), which the CUDA kernels call too.
#include <doctest/doctest.h>

#include "sim/schedule/defaults.h"
#include "sim/schedule/flashdecode/flashdecode.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

namespace {

Problem decode(std::uint64_t n, std::uint64_t n_kv, std::uint64_t batch, std::uint64_t heads, std::uint64_t kv_heads) {
  Problem p = problem(n, 128, batch, heads, n_kv);
  p.kv_heads = kv_heads;
  return p;
}

ScheduleRun run_split(const std::string& schedule, const Problem& p, std::uint64_t splits) {
  ScheduleContext ctx = context(p);
  ctx.splits = splits;
  return count(schedule, ctx);
}

}  // namespace

SCENARIO("flashdecode packs a group's query heads; flashdecode-heads reads K/V once per query head") {
  GIVEN("3 queries per head, 32 query heads on 8 K/V heads (group 4), batch 2, 5,000 keys, d = 128, 5 splits") {
    const Problem p = decode(3, 5000, 2, 32, 8);
    const std::uint64_t q = tensor_elements(p, Tensor::Q), k = tensor_elements(p, Tensor::K);
    const std::uint64_t rows = 2 * 32 * 3, s = 5;  // query rows of all heads; splits
    for (const char* schedule : {"flashdecode", "flashdecode-heads"}) {
      const bool packed = std::string(schedule) == "flashdecode";
      INFO("schedule ", schedule);
      const ScheduleRun r = run_split(schedule, p, s);
      // K and V once per K/V head (packed) or per query head; Q and the partials once per split.
      CHECK(r.tiles == TileShape{64, 128});
      CHECK(reads(r, Tensor::K) == (packed ? 1 : 4) * k);
      CHECK(reads(r, Tensor::V) == (packed ? 1 : 4) * k);
      CHECK(reads(r, Tensor::Q) == s * q);
      CHECK(writes(r, Tensor::Opart) == s * rows * 128);
      CHECK(reads(r, Tensor::Opart) == s * rows * 128);
      CHECK(writes(r, Tensor::Lpart) == s * rows);
      CHECK(reads(r, Tensor::Lpart) == s * rows);
      CHECK(writes(r, Tensor::O) == q);
      CHECK(writes(r, Tensor::L) == rows);
      CHECK(reads(r, Tensor::O) == 0);
      CHECK(writes(r, Tensor::K) == 0);
    }
  }
  GIVEN("100 queries per head (more than one 64-row tile), group 4, not split") {
    const Problem p = decode(100, 1000, 1, 8, 2);
    const std::uint64_t k = tensor_elements(p, Tensor::K);
    THEN("packed: ⌈4·100/64⌉ = 7 row tiles per K/V head read K; per head: 4 × ⌈100/64⌉ = 8") {
      CHECK(reads(run_split("flashdecode", p, 1), Tensor::K) == 7 * k);
      CHECK(reads(run_split("flashdecode-heads", p, 1), Tensor::K) == 8 * k);
      CHECK(reads(run_split("flashdecode-heads", p, 1), Tensor::Opart) == 0);
    }
  }
  GIVEN("multi-head attention (group 1)") {
    const Problem p = decode(1, 4096, 4, 16, 16);
    THEN("the two variants count the same") {
      const ScheduleRun a = run_split("flashdecode", p, 4), b = run_split("flashdecode-heads", p, 4);
      for (Tensor t : {Tensor::Q, Tensor::K, Tensor::V, Tensor::O, Tensor::L, Tensor::Opart, Tensor::Lpart}) {
        CHECK(reads(a, t) == reads(b, t));
        CHECK(writes(a, t) == writes(b, t));
      }
    }
  }
}

TEST_CASE("the split count of both variants comes from flashdecode_splits") {
  HardwareSpec hw = a100();
  hw.sm.count = 132;
  // The decoding speed target's shape: batch 8, 32 query heads on 8 K/V heads, one query, 32,768 keys,
  // d = 128.
  const Problem p = decode(1, 32768, 8, 32, 8);
  const TileShape t{64, 128};
  // Packed: 8 · 8 blocks of one row tile on 264 slots, 256 K/V tiles; per head: 8 · 32 = 256 blocks,
  // which fill 80% of the slots: no split.
  CHECK(flashdecode_splits(p, t, 132, true) == fa2_num_splits(64, 264, 256));
  CHECK(flashdecode_splits(p, t, 132, false) == 1);
  const std::uint64_t s = flashdecode_splits(p, t, 132, true);
  CHECK(s == 4);  // 4 splits: 256 blocks on 264 slots, 97% of a wave; 1-3 splits reach at most 73%
  const ScheduleRun packed = count("flashdecode", context(p, hw));
  CHECK(packed.variant == "split");
  CHECK(reads(packed, Tensor::Q) == s * tensor_elements(p, Tensor::Q));
  const ScheduleRun heads = count("flashdecode-heads", context(p, hw));
  CHECK(heads.variant == "unsplit");
  CHECK(reads(heads, Tensor::K) == 4 * tensor_elements(p, Tensor::K));
  CHECK(reads(heads, Tensor::Opart) == 0);
}
