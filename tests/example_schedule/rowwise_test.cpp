// The worked example of docs/adding-a-schedule.md: rowwise, registered through a list of this program's
// own (schedules.def here), counts what its closed form says.
#include <doctest/doctest.h>

#include <algorithm>

#include "sim/schedule/kernel_family.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

TEST_CASE("example schedule: rowwise is the catalog's last entry, after the product's") {
  const auto all = schedule_catalog();
  REQUIRE(!all.empty());
  CHECK(all.back().name == "rowwise");
  CHECK(find_schedule("flash2") != nullptr);
  CHECK(family_of("rowwise_fwd").name == "rowwise");
  const auto& families = kernel_families();
  CHECK(std::count_if(families.begin(), families.end(), [](const KernelFamily& f) { return f.name == "rowwise"; }) == 1);
}

TEST_CASE("example schedule: rowwise reads Q once, K and V once per Q tile, writes O and L once") {
  for (std::uint64_t n : {1u, 100u, 256u}) {
    for (std::uint64_t n_kv : {64u, 333u}) {
      for (const auto& t : {tiles(16, 16), tiles(32, 128), tiles(48, 40)}) {
        for (std::uint64_t kv_heads : {4u, 2u}) {
          CAPTURE(n);
          CAPTURE(n_kv);
          CAPTURE(*t.br);
          CAPTURE(kv_heads);
          const std::uint64_t d = 64, bh = 3 * 4;  // batch 3 × 4 query heads
          Problem p = problem(n, d, 3, 4, n_kv);
          p.kv_heads = kv_heads;
          const ScheduleRun r = count("rowwise", context(p, a100(), t));
          const std::uint64_t Tr = ceil_div(n, *t.br);
          CHECK(reads(r, Tensor::Q) == bh * n * d);
          CHECK(reads(r, Tensor::K) == bh * Tr * n_kv * d);
          CHECK(reads(r, Tensor::V) == bh * Tr * n_kv * d);
          CHECK(reads(r, Tensor::O) == 0);
          CHECK(writes(r, Tensor::O) == bh * n * d);
          CHECK(writes(r, Tensor::L) == bh * n);
          CHECK(r.ledger.matmul_flops().value == bh * 4 * n * n_kv * d);
        }
      }
    }
  }
}

TEST_CASE("example schedule: rowwise's default tile halves B_r until S_i fits") {
  // A100: 163 KiB of shared memory per block. S_i is B_r × N_kv fp32; Q_i B_r × d and K_j / V_j 64 × d fp16.
  const std::uint64_t d = 64, limit = a100().sm.sram_per_block.value;
  for (std::uint64_t n_kv : {256u, 1024u, 2048u}) {
    CAPTURE(n_kv);
    std::uint64_t br = 64;
    while (4 * br * n_kv + 2 * br * d + 2 * 64 * d > limit) br /= 2;
    const ScheduleRun r = count("rowwise", context(problem(4096, d, 1, 1, n_kv)));
    CHECK(r.tiles == TileShape{br, 64});
    CHECK(r.sram.peak() <= Bytes(limit));
  }
}

TEST_CASE("example schedule: rowwise moves what flash2's forward moves with its tile, and keeps more on chip") {
  Problem p = problem(1024, 64, 1, 2, 512);
  const ScheduleRun row = count("rowwise", context(p, a100(), tiles(32, 64)));
  const ScheduleRun fa2 = count("flash2", context(p, a100(), tiles(32, 64)));
  CHECK(row.ledger.total(Level::hbm).elements().value == fa2.ledger.total(Level::hbm).elements().value);
  CHECK(row.sram.peak() > fa2.sram.peak());
}

TEST_CASE("example schedule: rowwise refuses a causal mask in one line") {
  Problem p = problem(256, 64);
  p.causal = true;
  CHECK_THROWS_WITH_AS((void)count("rowwise", context(p)),
                       "rowwise: the causal mask is not modelled (the example counts dense attention)", InputError);
}
