// Lower bounds: no exact algorithm moves less than its inputs and outputs once, nor less than
// Θ(N²·d²/M) (M ≥ d², Proposition 3) or Θ(N²·d/√M) (M < d², Saha & Ye). Every schedule sits above.
#include <doctest/doctest.h>

#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

TEST_CASE("lower bound values") {
  const Problem p = problem(16384, 64, 2, 2);
  // M = 83,456 ≥ d² = 4096: B·H·N²·d²/M = 52.7 M; the inputs and outputs once are 4·B·H·N·d = 16.8 M.
  const BoundValue lo = lower_bound(p, 83456, false);
  CHECK(lo.value == doctest::Approx(4.0 * 16384 * 16384 * 64 * 64 / 83456));
  CHECK(lo.formula == "max(inputs + outputs, B·H·N·N_kv·d²/M)");
  // Below d² the d-tiled bound applies.
  CHECK(lower_bound(p, 1024, false).value == doctest::Approx(4.0 * 16384 * 16384 * 64 / 32));
  CHECK(lower_bound(p, 1024, false).formula == "max(inputs + outputs, B·H·N·N_kv·d/√M)");
  // At n = 4096 the compulsory traffic is the larger.
  CHECK(lower_bound(problem(4096, 64, 2, 2), 83456, false).value == doctest::Approx(4.0 * 4 * 4096 * 64));
  // Small n: reading the inputs and writing the output once dominates.
  const Problem tiny = problem(64, 64, 1, 1);
  CHECK(lower_bound(tiny, 83456, false).value == doctest::Approx(4.0 * 64 * 64));
  CHECK(lower_bound(tiny, 83456, true).value == doctest::Approx(8.0 * 64 * 64));
}

TEST_CASE("every schedule moves at least the lower bound's compulsory traffic") {
  for (const ScheduleInfo& info : schedule_catalog()) {
    for (Pass pass : {Pass::fwd, Pass::bwd}) {
      if (!has_pass(info.name, pass) || !runs_anywhere(info.name)) continue;
      for (std::uint64_t n : {64u, 1000u, 8192u}) {
        const std::string name(info.name);
        CAPTURE(name);
        CAPTURE(n);
        const ScheduleRun r = count(name, context(problem(n, 64, 2, 4)), pass);
        // Inputs read and outputs written at least once each.
        const Problem p = problem(n, 64, 2, 4);
        for (Tensor t : {Tensor::Q, Tensor::K, Tensor::V}) CHECK(reads(r, t) >= tensor_elements(p, t));
        if (pass == Pass::fwd) CHECK(writes(r, Tensor::O) >= tensor_elements(p, Tensor::O));
        if (pass == Pass::bwd) {
          for (Tensor t : {Tensor::dQ, Tensor::dK, Tensor::dV}) CHECK(writes(r, t) >= tensor_elements(p, t));
        }
        CHECK(r.lower_ratio() >= 1.0);
      }
    }
  }
}

TEST_CASE("every schedule's count is at least the lower bound, masked or not, windowed or not, n_kv above or below n") {
  // With a causal mask (bottom-right) and n = 8192, n_kv = 1 flash1 once counted 0.53 of the bound:
  // the bound charged reading every query row, though only the last row sees the one key.
  for (const ScheduleInfo& info : schedule_catalog()) {
    if (!runs_anywhere(info.name)) continue;
    const std::string name(info.name);
    for (Pass pass : {Pass::fwd, Pass::bwd}) {
      if (!has_pass(info.name, pass)) continue;
      for (std::uint64_t n : {1u, 64u, 1000u, 8192u}) {
        for (std::uint64_t n_kv : {1u, 64u, 1000u, 8192u}) {
          // No mask, the causal mask, a window of one key (the diagonal), of 64 keys (or n_kv).
          for (std::uint64_t mask : {0u, 1u, 2u, 3u}) {
            Problem p = problem(n, 64, 1, 2, n_kv);
            p.causal = mask != 0;
            p.window = mask == 2 ? 1 : mask == 3 ? std::min<std::uint64_t>(64, n_kv) : 0;
            CAPTURE(name);
            CAPTURE(pass);
            CAPTURE(n);
            CAPTURE(n_kv);
            CAPTURE(p.causal);
            CAPTURE(p.window);
            std::unique_ptr<Schedule> s;
            try {
              s = make_schedule(name, pass, context(p));
            } catch (const InputError&) {
              continue;  // a schedule that refuses the problem (flashdecode's single query rows) moves nothing
            }
            const ScheduleRun r = run_schedule(*s, context(p));
            CHECK(r.lower_ratio() >= 1.0);
          }
        }
      }
    }
  }
}

TEST_CASE("the lower bound under a causal mask: query rows that see no key are not read") {
  Problem p = problem(8192, 64, 1, 1, 1);
  p.causal = true;
  // One query row sees the one key: Q's row and K, V read; O written whole.
  CHECK(lower_bound(p, 83456, false).value == doctest::Approx(64.0 * (1 + 1 + 1 + 8192)));
  // Backward: Q, O, dO of that row and K, V read; dQ (8192 rows), dK, dV written.
  CHECK(lower_bound(p, 83456, true).value == doctest::Approx(64.0 * (3 + 2 + 8192 + 2)));
  // Without the mask every row is read.
  p.causal = false;
  CHECK(lower_bound(p, 83456, false).value == doctest::Approx(64.0 * (8192 + 2 + 8192)));
}

TEST_CASE("tiled schedules sit a constant factor above the lower bound as n grows; naive does not") {
  const auto ratio = [](const char* name, std::uint64_t n) { return count(name, context(problem(n, 64))).lower_ratio(); };
  CHECK(ratio("flash2", 65536) / ratio("flash2", 16384) == doctest::Approx(1.0).epsilon(0.02));
  // naive's N² term stores S and P: M/d² ≈ 20 times the bound at any n ≫ d.
  CHECK(ratio("naive", 65536) > 15.0);
}
