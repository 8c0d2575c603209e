// The sliding window: flash2's forward reads, per block of query rows, only the K/V tiles its window
// reaches, so its traffic grows linearly in n at a fixed window (Θ(n·W·d²/M)); the bounds say so too.
#include <doctest/doctest.h>

#include "sim/bounds/bounds.h"
#include "sim/core/mask.h"
#include "sim/slopes/sweep.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

namespace {

Problem windowed(std::uint64_t n, std::uint64_t d, std::uint64_t window, std::uint64_t n_kv = 0) {
  Problem p = problem(n, d, 1, 1, n_kv == 0 ? n : n_kv);
  p.causal = true;
  p.window = window;
  return p;
}

/// K (or V) elements flash2's forward reads, in closed form. Row block i holds rows [i·B_r, r1),
/// r1 = min((i + 1)·B_r, n); with n = n_kv its rows see keys [max(0, i·B_r − W + 1), r1), so it reads
/// the K/V tiles from ⌊max(0, i·B_r − W + 1)/B_c⌋ to ⌈r1/B_c⌉ − 1, each of its own size.
std::uint64_t closed_form_kv_reads(std::uint64_t n, std::uint64_t d, std::uint64_t w, std::uint64_t br, std::uint64_t bc) {
  std::uint64_t total = 0;
  for (std::uint64_t r0 = 0; r0 < n; r0 += br) {
    const std::uint64_t r1 = std::min(r0 + br, n);
    const std::uint64_t first_key = r0 + 1 > w ? r0 + 1 - w : 0;
    for (std::uint64_t j = first_key / bc; j < (r1 + bc - 1) / bc; ++j) total += std::min(bc, n - j * bc) * d;
  }
  return total;
}

}  // namespace

SCENARIO("windowed flash2 reads the K/V tiles of each row block's window") {
  GIVEN("n = 1024, d = 64, 128 × 128 tiles and W = 256") {
    const ScheduleRun r = count("flash2", context(windowed(1024, 64, 256), a100(), tiles(128, 128)));
    THEN("row block i reads tiles max(0, i − 2)..i: 1 + 2 + 3 × 6 = 21 tiles of K and of V") {
      CHECK(reads(r, Tensor::K) == 21ull * 128 * 64);
      CHECK(reads(r, Tensor::V) == 21ull * 128 * 64);
      CHECK(reads(r, Tensor::Q) == 1024ull * 64);
    }
  }
  GIVEN("shapes whose tiles divide neither n nor the window") {
    for (std::uint64_t n : {100u, 257u, 1000u}) {
      for (std::uint64_t w : {1u, 7u, 64u, 99u}) {
        for (const auto& t : {tiles(16, 32), tiles(33, 7), tiles(64, 64)}) {
          CAPTURE(n);
          CAPTURE(w);
          CAPTURE(*t.br);
          CAPTURE(*t.bc);
          const ScheduleRun r = count("flash2", context(windowed(n, 16, w), a100(), t));
          const std::uint64_t want = closed_form_kv_reads(n, 16, w, *t.br, *t.bc);
          THEN("K and V reads equal the closed form") {
            CHECK(reads(r, Tensor::K) == want);
            CHECK(reads(r, Tensor::V) == want);
          }
        }
      }
    }
  }
}

TEST_CASE("at a fixed window, flash2's K/V reads grow linearly in n") {
  // B_r = B_c = 128, W = 256: T = n/128 row blocks read 1, 2, then 3 tiles each: (3T − 3) tiles.
  std::uint64_t previous = 0;
  for (std::uint64_t n = 1024; n <= 131072; n *= 2) {
    CAPTURE(n);
    const ScheduleRun r = count("flash2", context(windowed(n, 64, 256), a100(), tiles(128, 128)));
    const std::uint64_t t = n / 128;
    CHECK(reads(r, Tensor::K) == (3 * t - 3) * 128 * 64);
    // Doubling n doubles the reads, plus a constant: linear, not quadratic.
    if (previous != 0) CHECK(reads(r, Tensor::K) == 2 * previous + 3 * 128 * 64);
    previous = reads(r, Tensor::K);
  }
  // Without the window the same reads grow quadratically: 4× per doubling, less the diagonal's share.
  Problem causal = windowed(65536, 64, 0);
  const ScheduleRun full = count("flash2", context(causal, a100(), tiles(128, 128)));
  const ScheduleRun win = count("flash2", context(windowed(65536, 64, 256), a100(), tiles(128, 128)));
  // Σ(i + 1) over 512 row blocks = 131,328 tiles against 3·512 − 3 = 1,533: 85.7 times as many.
  CHECK(reads(full, Tensor::K) > 85 * reads(win, Tensor::K));
}

TEST_CASE("windowed pairs and bounds: N·W less the first rows' triangle, linear in n") {
  for (std::uint64_t n : {1u, 7u, 64u, 100u}) {
    for (std::uint64_t nkv : {1u, 7u, 64u, 130u}) {
      for (std::uint64_t w : {1u, 5u, 64u, 130u}) {
        if (w > nkv) continue;
        const Problem p = windowed(n, 8, w, nkv);
        const Mask m(p);
        double pairs = 0;
        std::uint64_t keys_seen = 0;
        for (std::uint64_t c = 0; c < nkv; ++c) {
          bool seen = false;
          for (std::uint64_t r = 0; r < n; ++r) {
            pairs += m.sees(r, c) ? 1 : 0;
            seen = seen || m.sees(r, c);
          }
          keys_seen += seen ? 1 : 0;
        }
        CAPTURE(n);
        CAPTURE(nkv);
        CAPTURE(w);
        CHECK(scored_pairs(p) == pairs);
        CHECK(seen_keys(p) == static_cast<double>(keys_seen));
      }
    }
  }
  // n = n_kv ≥ W: every row past the first W − 1 sees W keys, row r < W sees r + 1.
  const Problem p = windowed(65536, 64, 4096);
  CHECK(scored_pairs(p) == doctest::Approx(65536.0 * 4096 - 4096.0 * 4095 / 2));
  // The attention term of the lower bound doubles with n at a fixed window, and names the window.
  const std::uint64_t m = 83456;
  const BoundValue lo = lower_bound(p, m, false);
  const BoundValue lo2 = lower_bound(windowed(131072, 64, 4096), m, false);
  CHECK(lo.formula == "max(inputs + outputs, B·H·pairs(W=4096)·d²/M)");
  CHECK(lo2.value / lo.value == doctest::Approx(2.0).epsilon(0.05));
  CHECK(upper_bound(BoundKind::io_aware, p, m).formula == "B·H·pairs(W=4096)·d²/M");
}

TEST_CASE("every masking schedule skips the tiles outside the window") {
  // Scores outside every window are never computed, and less moves, whichever loop is outer.
  for (const char* name : {"flash1", "flash2", "flash3", "dtiled"}) {
    for (Pass pass : {Pass::fwd, Pass::bwd}) {
      if (!has_pass(name, pass)) continue;
      CAPTURE(std::string(name));
      CAPTURE(iosim::name(pass));
      const HardwareSpec hw = std::string(name) == "flash3" ? hopper() : a100();
      const ScheduleRun causal = count(name, context(windowed(4096, 64, 0), hw, tiles(64, 64)), pass);
      const ScheduleRun win = count(name, context(windowed(4096, 64, 128), hw, tiles(64, 64)), pass);
      CHECK(win.ledger.total(Level::hbm).elements().value < causal.ledger.total(Level::hbm).elements().value);
      CHECK(win.ledger.matmul_flops().value * 8 < causal.ledger.matmul_flops().value);
    }
  }
  // Decoding one query against a cache of 4096 keys reads only the window's 128 keys' tiles.
  const ScheduleRun full = count("flashdecode", context(windowed(1, 64, 0, 4096), a100(), tiles(16, 64)));
  const ScheduleRun win = count("flashdecode", context(windowed(1, 64, 128, 4096), a100(), tiles(16, 64)));
  CHECK(reads(full, Tensor::K) == 4096ull * 64);
  CHECK(reads(win, Tensor::K) == 128ull * 64);
}

TEST_CASE("iosim bounds' windowed n sweep: the tiled schedules' traffic has slope 1 in n") {
  for (Pass pass : {Pass::fwd, Pass::bwd}) {
    SweepSpec spec = default_sweep(pass);
    spec.window = 4096;
    std::size_t windowed_checks = 0;
    for (const SlopeCheck& c : sweep_slopes(context(problem(1, 64)), spec)) {
      if (c.window == 0) continue;
      ++windowed_checks;
      CAPTURE(c.schedule);
      CAPTURE(iosim::name(pass));
      CHECK(c.window == 4096);
      CHECK(c.expected == 1.0);
      CHECK(c.within());
      for (const SweepPoint& p : c.points) CHECK(p.n >= 4096);
    }
    CHECK(windowed_checks == 2);  // flash1 and flash2; naive computes S whole
  }
  SweepSpec too_wide = default_sweep();
  too_wide.window = too_wide.n_values.back();  // one n of the sweep is at least W
  CHECK_THROWS_AS((void)sweep_slopes(context(problem(1, 64)), too_wide), InputError);
}
