// iosim tiles: the search space, the reasons for rejection, the ranking.
#include <doctest/doctest.h>

#include "sim/schedule/kernel_family.h"
#include "sim/tiles/search.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

TEST_CASE("every candidate is either ranked by time or rejected with a reason") {
  const std::vector<TileCandidate> c = search_tiles(context(problem(2048, 64, 1, 4), a100()), TileSearchSpec{});
  CHECK(c.size() == 5 * 5 * 4 * 2);
  std::size_t feasible = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (c[i].rejected.empty()) {
      ++feasible;
      CHECK(i + 1 == feasible);  // feasible first
      if (i > 0) CHECK(c[i - 1].time.total_s <= c[i].time.total_s);
      CHECK(c[i].time.total_s > 0);
    } else {
      const std::string& r = c[i].rejected;
      CHECK((r.rfind("shared memory", 0) == 0 || r.rfind("registers", 0) == 0 || r.rfind("threads", 0) == 0));
    }
  }
  CHECK(feasible > 10);
}

TEST_CASE("the reasons are the right ones") {
  TileSearchSpec spec;
  spec.sizes = {256};
  spec.warps = {4};
  spec.stages = {1};
  // 256 × 256 at d = 128: K and V alone are 128 KiB; with Q, 192 KiB > 163 KiB.
  const auto c = search_tiles(context(problem(2048, 128), a100()), spec);
  REQUIRE(c.size() == 1);
  CHECK(c[0].rejected.rfind("shared memory", 0) == 0);
  spec.sizes = {32};
  const auto t = search_tiles(context(problem(2048, 64), a100()), spec);
  CHECK(t[0].rejected == "threads: 4 warps need B_r ≥ 64 (16 rows each)");
  spec.sizes = {256};
  const auto g = search_tiles(context(problem(2048, 64), a100()), spec);
  CHECK(g[0].rejected.rfind("registers", 0) == 0);
}

TEST_CASE("schedules without tiles cannot be searched") {
  TileSearchSpec spec;
  spec.schedule = "naive";
  CHECK_THROWS_AS((void)search_tiles(context(problem(1024, 64)), spec), InputError);
}

TEST_CASE("a ranked candidate carries the registers and blocks per SM the time model ran it with") {
  const std::vector<TileCandidate> c = search_tiles(context(problem(2048, 64, 1, 4), a100()), TileSearchSpec{});
  std::size_t with_family_registers = 0;
  for (const TileCandidate& t : c) {
    if (!t.rejected.empty()) continue;
    for (const KernelTime& k : t.time.kernels) {
      if (k.family != "fa2-fwd") continue;
      CHECK(k.blocks_per_sm >= 1);
      CHECK(!k.limited_by.empty());
      // The family's register model (fitted to ptxas), not the schedule's estimate, where it holds the tile.
      if (k.registers > 0) {
        ++with_family_registers;
        CHECK(k.registers == family_registers(family_of(k.name), t.launch.fragment_registers));
      }
    }
  }
  CHECK(with_family_registers > 0);
}

TEST_CASE("a tile the family's register model says would spill is rejected, naming the model") {
  // 256 × 32 with 4 warps at d = 64: each thread holds its share of S (64 fp32), O (128) and Q's
  // fragments (64): 256 fragment registers, 55.9 + 1.168 × 256 = 354.9, so 355 by fa2-fwd's fit to
  // ptxas, where the schedule's own estimate (the accumulators only) fits the 255 a thread may have.
  // The menu compiles no such kernel: the fit, not a compiled variant, prices it.
  TileSearchSpec spec;
  spec.sizes = {256, 32};
  spec.warps = {4};
  spec.stages = {2};
  const auto c = search_tiles(context(problem(2048, 64), a100()), spec);
  const KernelFamily& f = family_of("flash2_fwd");
  bool seen = false;
  for (const TileCandidate& t : c) {
    if (t.tiles.br != 256 || t.tiles.bc != 32) continue;
    seen = true;
    CHECK(t.occupancy.infeasible.empty());  // the schedule's estimate alone would run it
    CHECK(family_registers(f, t.launch.fragment_registers) == 355);
    CHECK(t.rejected ==
          "registers: about 355 per thread by fa2-fwd's register model (ptxas), the limit is 255: it would spill");
  }
  CHECK(seen);
  // Every candidate that runs fits by the same model.
  for (const TileCandidate& t : search_tiles(context(problem(2048, 64, 1, 4), a100()), TileSearchSpec{})) {
    if (t.rejected.empty() && t.launch.fragment_registers > 0) {
      CHECK(family_registers(f, t.launch.fragment_registers) <= 255);
    }
  }
}

TEST_CASE("the warps split the products as the family's kernels do: rows in a forward, a grid in a backward") {
  // The backward kernels (cuda/kernels/flash_bwd_common.cuh) tile S, dP, dK, dV and dQ as a grid of
  // warps, so B_c = 32 with 4 warps runs (the kernel menu has 32 × 32 with 4 warps) where a rule of
  // 16 rows a warp along B_c would refuse it.
  TileSearchSpec spec;
  spec.pass = Pass::bwd;
  spec.sizes = {32};
  spec.warps = {4, 8};
  spec.stages = {1};
  const auto c = search_tiles(context(problem(2048, 64), a100()), spec);
  REQUIRE(c.size() == 2);
  for (const TileCandidate& t : c) {
    if (t.kernel.warps == 4) CHECK(t.rejected.empty());
    // 8 warps over 32 × 32: 2 m16 tiles, so 4 warps along n with one n8 tile each, less than 2.
    if (t.kernel.warps == 8) {
      CHECK(t.rejected == "threads: 8 warps do not tile S, dP (B_r × B_c) = 32 × 32 (each whole m16 rows and an even "
                          "number, at least 2, of n8 columns)");
    }
  }
  // The forward keeps its rule: 4 warps own 16 rows each of B_r.
  spec.pass = Pass::fwd;
  spec.warps = {4};
  const auto f = search_tiles(context(problem(2048, 64), a100()), spec);
  REQUIRE(f.size() == 1);
  CHECK(f[0].rejected == "threads: 4 warps need B_r ≥ 64 (16 rows each)");
}
