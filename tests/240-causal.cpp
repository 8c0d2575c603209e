// The causal mask at tile granularity, against brute force over every score, and the counts it gives.
#include <doctest/doctest.h>

#include <random>

#include "sim/bounds/bounds.h"
#include "sim/core/mask.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

namespace {

struct Visibility {
  bool any = false, all = true;
};

/// Brute force: does some / every score of tile (rows [r0, r1), cols [c0, c1)) survive the mask?
Visibility brute(const Mask& m, std::uint64_t r0, std::uint64_t r1, std::uint64_t c0, std::uint64_t c1) {
  Visibility v;
  for (std::uint64_t r = r0; r < r1; ++r) {
    for (std::uint64_t c = c0; c < c1; ++c) {
      v.any = v.any || m.sees(r, c);
      v.all = v.all && m.sees(r, c);
    }
  }
  return v;
}

/// Every tile of `rows` × `cols` against brute force: the K/V ranges of each Q tile and the Q ranges of
/// each K/V tile hold exactly the tiles with some score seen, and their whole parts exactly the tiles
/// with every score seen.
void check_ranges(const Mask& m, const Tiling& rows, const Tiling& cols) {
  for (std::uint64_t i = 0; i < rows.count(); ++i) {
    const KvRange kv = m.kv_for_rows(rows.begin(i), rows.begin(i) + rows.size(i), cols);
    CHECK(kv.start <= kv.full_lo);
    CHECK(kv.full_lo <= kv.full_hi);
    CHECK(kv.full_hi <= kv.end);
    for (std::uint64_t j = 0; j < cols.count(); ++j) {
      const Visibility v = brute(m, rows.begin(i), rows.begin(i) + rows.size(i), cols.begin(j), cols.begin(j) + cols.size(j));
      CHECK((kv.start <= j && j < kv.end) == v.any);
      CHECK((kv.full_lo <= j && j < kv.full_hi) == (v.any && v.all));
    }
  }
  for (std::uint64_t j = 0; j < cols.count(); ++j) {
    const QRange q = m.q_for_cols(cols.begin(j), cols.begin(j) + cols.size(j), rows);
    CHECK(q.start <= q.full_lo);
    CHECK(q.full_lo <= q.full_hi);
    CHECK(q.full_hi <= q.end);
    for (std::uint64_t i = 0; i < rows.count(); ++i) {
      const Visibility v = brute(m, rows.begin(i), rows.begin(i) + rows.size(i), cols.begin(j), cols.begin(j) + cols.size(j));
      CHECK((q.start <= i && i < q.end) == v.any);
      CHECK((q.full_lo <= i && i < q.full_hi) == (v.any && v.all));
    }
  }
}

Problem masked(std::uint64_t n, std::uint64_t nkv, std::uint64_t window) {
  Problem q = problem(n, 8, 1, 1, nkv);
  q.causal = true;
  q.window = window;
  return q;
}

}  // namespace

TEST_CASE("tile ranges of the causal mask, with and without a window, equal brute force") {
  for (std::uint64_t n : {1u, 5u, 16u, 37u}) {
    for (std::uint64_t nkv : {1u, 5u, 16u, 41u}) {
      for (std::uint64_t window : {0u, 1u, 2u, 5u, 13u, 41u}) {
        if (window > nkv) continue;
        for (std::uint64_t br : {1u, 4u, 7u, 16u}) {
          for (std::uint64_t bc : {1u, 3u, 8u, 50u}) {
            CAPTURE(n);
            CAPTURE(nkv);
            CAPTURE(window);
            CAPTURE(br);
            CAPTURE(bc);
            check_ranges(Mask(masked(n, nkv, window)), Tiling{n, br}, Tiling{nkv, bc});
          }
        }
      }
    }
  }
}

TEST_CASE("windowed tile ranges equal brute force on random shapes") {
  std::mt19937_64 rng(7);
  const auto draw = [&](std::uint64_t lo, std::uint64_t hi) { return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng); };
  for (int trial = 0; trial < 400; ++trial) {
    const std::uint64_t n = draw(1, 90), nkv = draw(1, 90), window = draw(1, nkv);
    const std::uint64_t br = draw(1, 24), bc = draw(1, 24);
    CAPTURE(n);
    CAPTURE(nkv);
    CAPTURE(window);
    CAPTURE(br);
    CAPTURE(bc);
    check_ranges(Mask(masked(n, nkv, window)), Tiling{n, br}, Tiling{nkv, bc});
  }
}

TEST_CASE("a window sees the W keys ending at the diagonal") {
  const Mask m(masked(10, 12, 3));  // offset 2: row 0 sees keys 0..2, row 9 keys 9..11
  CHECK(m.sees(0, 0));
  CHECK(m.sees(0, 2));
  CHECK_FALSE(m.sees(0, 3));
  CHECK(m.sees(9, 9));
  CHECK_FALSE(m.sees(9, 8));
  CHECK(m.sees(5, 5));
  CHECK_FALSE(m.sees(5, 4));
}

TEST_CASE("without a causal mask every tile is whole") {
  const Mask m(problem(100, 8));
  const KvRange kv = m.kv_for_rows(0, 10, Tiling{100, 16});
  CHECK(kv.start == 0);
  CHECK(kv.full_lo == 0);
  CHECK(kv.full_hi == 7);
  CHECK(kv.end == 7);
  const QRange q = m.q_for_cols(0, 16, Tiling{100, 16});
  CHECK(q.start == 0);
  CHECK(q.full_lo == 0);
  CHECK(q.full_hi == 7);
}

TEST_CASE("scored pairs under a causal mask equal brute force") {
  for (std::uint64_t n : {1u, 7u, 64u, 100u}) {
    for (std::uint64_t nkv : {1u, 7u, 64u, 130u}) {
      Problem p = problem(n, 8, 1, 1, nkv);
      p.causal = true;
      const Mask m(p);
      double pairs = 0;
      for (std::uint64_t r = 0; r < n; ++r) {
        for (std::uint64_t c = 0; c < nkv; ++c) pairs += m.sees(r, c) ? 1 : 0;
      }
      CAPTURE(n);
      CAPTURE(nkv);
      CHECK(scored_pairs(p) == pairs);
    }
  }
}

SCENARIO("causal flash2 skips the tiles above the diagonal") {
  GIVEN("n = n_kv = 1024 with 128 × 128 tiles: 8 Q tiles, block i reads K/V tiles 0..i") {
    Problem p = problem(1024, 64);
    p.causal = true;
    const ScheduleRun r = count("flash2", context(p, a100(), tiles(128, 128)));
    THEN("K and V are read Σ(i + 1) = 36 tile-times, half of 64 plus the diagonal") {
      CHECK(reads(r, Tensor::K) == 36ull * 128 * 64);
      CHECK(reads(r, Tensor::V) == 36ull * 128 * 64);
      CHECK(reads(r, Tensor::Q) == 1024ull * 64);
      // Tiles the diagonal crosses are computed whole: the products of 36 of the 64 tiles.
      const ScheduleRun full = count("flash2", context(problem(1024, 64), a100(), tiles(128, 128)));
      CHECK(r.ledger.matmul_flops().value == 36 * full.ledger.matmul_flops().value / 64);
    }
  }
}

TEST_CASE("causal and windowed counts equal a brute-force walk over tiles, every schedule and pass") {
  for (const char* name : {"flash1", "flash2"}) {
    for (Pass pass : {Pass::fwd, Pass::bwd}) {
      for (std::uint64_t n : {100u, 257u}) {
        for (std::uint64_t nkv : {100u, 300u, 64u}) {
          for (std::uint64_t window : {0u, 1u, 20u, 45u}) {
          for (const auto& t : {tiles(16, 32), tiles(33, 7)}) {
            CAPTURE(name);
            CAPTURE(n);
            CAPTURE(nkv);
            CAPTURE(window);
            CAPTURE(*t.br);
            Problem p = problem(n, 16, 1, 1, nkv);
            p.causal = true;
            p.window = window;
            const ScheduleRun r = count(name, context(p, a100(), t), pass);
            const Mask m(p);
            const Tiling rows{n, *t.br}, cols{nkv, *t.bc};
            // Brute force: Q tile i and K/V tile j meet when some score of the tile is seen.
            std::uint64_t q_reads = 0, k_reads = 0, k_tiles_seen = 0;
            for (std::uint64_t j = 0; j < cols.count(); ++j) {
              bool seen = false;
              for (std::uint64_t i = 0; i < rows.count(); ++i) {
                if (!brute(m, rows.begin(i), rows.begin(i) + rows.size(i), cols.begin(j), cols.begin(j) + cols.size(j)).any)
                  continue;
                seen = true;
                q_reads += rows.size(i) * 16;
                k_reads += cols.size(j) * 16;
              }
              if (seen) k_tiles_seen += cols.size(j) * 16;
            }
            const bool q_outer = std::string(name) == "flash2" && pass == Pass::fwd;
            if (q_outer) {
              CHECK(reads(r, Tensor::K) == k_reads);
              CHECK(reads(r, Tensor::Q) == n * 16);
            } else {
              CHECK(reads(r, Tensor::K) == k_tiles_seen);
              CHECK(reads(r, Tensor::Q) == q_reads);
            }
          }
          }
        }
      }
    }
  }
}

TEST_CASE("the causal mask changes nothing for naive's traffic, only its FLOPs") {
  Problem p = problem(2048, 64);
  const ScheduleRun full = count("naive", context(p));
  p.causal = true;
  const ScheduleRun causal = count("naive", context(p));
  CHECK(causal.ledger.total(Level::hbm) == full.ledger.total(Level::hbm));
  CHECK(causal.ledger.vector_flops().value == full.ledger.vector_flops().value + 2048ull * 2048);
  // The bounds count scored pairs: n(n + 1)/2 under the mask.
  CHECK(causal.upper.value == doctest::Approx(2048.0 * 64 + 2048.0 * 2049 / 2));
}
