// The d-tiled schedule for SRAM below d² (Saha & Ye 2024): exact counts, and Θ(N²·d/√M).
#include <doctest/doctest.h>

#include <cmath>

#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

TEST_CASE("dtiled: Q and K streamed per tile pair in d-chunks, O read and written per K/V tile") {
  for (std::uint64_t n : {64u, 100u, 1000u}) {
    for (std::uint64_t nkv : {64u, 333u}) {
      for (const auto& t : {tiles(16, 16), tiles(10, 24), tiles(32, 128)}) {
        CAPTURE(n);
        CAPTURE(nkv);
        CAPTURE(*t.br);
        const std::uint64_t d = 80;
        const ScheduleRun r = count("dtiled", context(problem(n, d, 2, 1, nkv), a100(), t));
        const std::uint64_t Tr = ceil_div(n, *t.br), Tc = ceil_div(nkv, *t.bc);
        CHECK(reads(r, Tensor::Q) == 2 * Tc * n * d);
        CHECK(reads(r, Tensor::K) == 2 * Tr * nkv * d);
        CHECK(reads(r, Tensor::V) == 2 * Tr * nkv * d);
        CHECK(reads(r, Tensor::O) == 2 * (Tc - 1) * n * d);
        CHECK(writes(r, Tensor::O) == 2 * Tc * n * d);
        CHECK(writes(r, Tensor::L) == 2 * n);
        CHECK(r.ledger.matmul_flops().value == 2 * 4 * n * nkv * d);
      }
    }
  }
}

TEST_CASE("dtiled's default tile: B = ⌊√(M/5)⌋, and its footprint fits") {
  const HardwareSpec hw = with_sram(16384);  // M = 8192 fp16 elements
  const ScheduleRun r = count("dtiled", context(problem(4096, 128), hw));
  CHECK(r.tiles == TileShape{40, 40});  // ⌊√(8192 / 5)⌋ = 40
  CHECK(r.sram.peak() <= Bytes(16384));
  CHECK(r.upper.formula == "B·H·N·N_kv·d/√M");
}

TEST_CASE("below M = d², dtiled moves less than flash2; above, more") {
  // d = 128: d² = 16384 elements. Both schedules' tiles follow M (flash2: B_r = B_c = ⌊M/4d⌋).
  const auto moved = [](const char* name, std::uint64_t m) {
    const std::uint64_t d = 128;
    ScheduleContext ctx = context(problem(16384, d), with_sram(2 * m));
    if (std::string(name) == "flash2") ctx.tiles = tiles(m / (4 * d), m / (4 * d));
    return static_cast<double>(count(name, ctx).ledger.total(Level::hbm).elements().value);
  };
  CHECK(moved("dtiled", 2048) < moved("flash2", 2048));    // M = d²/8
  CHECK(moved("dtiled", 65536) > moved("flash2", 65536));  // M = 4·d²
}

TEST_CASE("causal dtiled skips what flash2 skips") {
  Problem p = problem(1024, 64);
  p.causal = true;
  const ScheduleRun r = count("dtiled", context(p, a100(), tiles(128, 128)));
  CHECK(reads(r, Tensor::K) == 36ull * 128 * 64);  // Σ(i + 1) over 8 Q tiles
  CHECK(writes(r, Tensor::O) == 36ull * 128 * 64);
}
