// What a thread block keeps on chip, and what happens when it does not fit.
#include <doctest/doctest.h>

#include "sim/core/error.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

TEST_CASE("footprints of the default tiles, by hand") {
  // flash2, d = 64, 128 × 64 (the kernel menu's): Q_i, K_j, V_j in shared memory = (128 + 2·64)·64·2 B = 32 KiB.
  CHECK(count("flash2", context(problem(8192, 64))).sram.peak() == Bytes(32768));
  // flash1, d = 64, 64 × 326: Q_i, O_i 64·64·2 B each; K_j, V_j 326·64·2 B each; S_ij 64·326·2 B;
  // six fp32 row statistics 64·6·4 B.
  CHECK(count("flash1", context(problem(8192, 64))).sram.peak() == Bytes(2 * 8192 + 2 * 41728 + 41728 + 1536));
  // naive: the softmax phase holds one row of S (8192·2 B); the GEMM phases 2 stages of two 128 × 32 slices.
  const ScheduleRun naive = count("naive", context(problem(8192, 64)));
  CHECK(naive.sram.peak() == Bytes(2 * (128 * 32 + 128 * 32) * 2));
  CHECK(naive.sram.phases.size() == 3);
  CHECK(naive.sram.phases[1].bytes(Storage::shared) == Bytes(16384));
}

TEST_CASE("tiles larger than the problem hold only what exists") {
  CHECK(count("flash2", context(problem(10, 64))).sram.peak() == Bytes(3 * 10 * 64 * 2));
}

SCENARIO("a default tile that does not fit is reduced, and the report says so") {
  GIVEN("flash1 at d = 128 on an A100: the paper's B_r = 128, B_c = 163 needs 189.2 KiB") {
    const ScheduleRun r = count("flash1", context(problem(8192, 128)));
    THEN("B_r is halved until it fits, and a note gives both tiles") {
      CHECK(r.tiles == TileShape{64, 163});
      CHECK(r.sram.peak() <= r.sram_limit);
      REQUIRE(r.notes.size() == 1);
      CHECK(r.notes[0].find("B_r=128 B_c=163") != std::string::npos);
      CHECK(r.notes[0].find("189.2 KiB") != std::string::npos);
      CHECK(r.notes[0].find("reduced to B_r=64 B_c=163") != std::string::npos);
    }
  }
}

SCENARIO("a tile the user asks for that does not fit is an error with footprint and limit") {
  GIVEN("flash2, d = 128, 256 × 256 on an A100") {
    const ScheduleContext ctx = context(problem(8192, 128), a100(), tiles(256, 256));
    THEN("building it throws, naming the tiles, the footprint and the limit") {
      try {
        (void)make_schedule("flash2", Pass::fwd, ctx);
        FAIL("expected InputError");
      } catch (const InputError& e) {
        const std::string msg = e.what();
        CHECK(msg.find("B_r=256 B_c=256") != std::string::npos);
        CHECK(msg.find("192.0 KiB") != std::string::npos);
        CHECK(msg.find("163.0 KiB") != std::string::npos);
        CHECK(msg.find("K_j 64.0 KiB") != std::string::npos);
      }
    }
  }
  GIVEN("a tile of zero rows") {
    CHECK_THROWS_AS((void)make_schedule("flash1", Pass::fwd, context(problem(64, 64), a100(), tiles(0, 16))),
                    InputError);
  }
  GIVEN("an SRAM too small for any tile") {
    CHECK_THROWS_WITH_AS((void)make_schedule("flash1", Pass::fwd, context(problem(64, 64), with_sram(100))),
                         doctest::Contains("no tile fits"), InputError);
  }
  GIVEN("an unknown schedule") {
    CHECK_THROWS_WITH_AS((void)make_schedule("flash9", Pass::fwd, context(problem(64, 64))),
                         doctest::Contains("known: naive, flash1, flash2"), InputError);
  }
}
