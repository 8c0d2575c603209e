// Theorem 2 of the FlashAttention paper, checked on counts: the bounds' values, the constants they
// hide, and the log-log slopes of `iosim bounds`.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "sim/bounds/slope.h"
#include "sim/slopes/sweep.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

TEST_CASE("bound values") {
  const Problem p = problem(1024, 64, 2, 3, 2048);
  CHECK(upper_bound(BoundKind::standard, p, 1000).value == doctest::Approx(6.0 * (1024 * 64 + 1024.0 * 2048)));
  CHECK(upper_bound(BoundKind::io_aware, p, 1000).value == doctest::Approx(6.0 * 1024 * 2048 * 64 * 64 / 1000));
}

TEST_CASE("log-log slope of exact power laws") {
  const std::vector<double> x{1, 2, 4, 8, 16};
  std::vector<double> y2, yinv;
  for (double v : x) {
    y2.push_back(3 * v * v);
    yinv.push_back(5 / v);
  }
  CHECK(loglog_slope(x, y2) == doctest::Approx(2.0));
  CHECK(loglog_slope(x, yinv) == doctest::Approx(-1.0));
  CHECK_THROWS((void)loglog_slope(std::vector<double>{1}, std::vector<double>{1}));
  CHECK_THROWS((void)loglog_slope(std::vector<double>{1, 1}, std::vector<double>{1, 2}));
}

TEST_CASE("count / bound stays a bounded constant over the theorem's range d ≤ M ≤ N·d") {
  // Doubling n must leave count/bound nearly unchanged when n ≫ d: the bound has the count's shape.
  for (const char* name : {"naive", "flash1", "flash2"}) {
    CAPTURE(name);
    const double r1 = count(name, context(problem(16384, 64))).upper_ratio();
    const double r2 = count(name, context(problem(32768, 64))).upper_ratio();
    CHECK(r1 > 1.0);
    CHECK(r1 < 32.0);
    CHECK(r2 / r1 == doctest::Approx(1.0).epsilon(0.05));
  }
}

TEST_CASE("iosim bounds: the slopes of Theorem 2 on an A100") {
  const std::vector<SlopeCheck> checks = sweep_slopes(context(problem(1, 64)), default_sweep());
  REQUIRE(checks.size() == 6);
  for (const SlopeCheck& c : checks) {
    CAPTURE(c.schedule);
    CAPTURE(c.variable);
    CAPTURE(c.fitted);
    CHECK(c.within());
    CHECK(c.points.size() >= 5);
  }
  // Tiles follow M in the M sweep: B_c grows with the SRAM.
  const SlopeCheck& f1m = checks[2];
  CHECK(f1m.variable == "M");
  CHECK(f1m.points.back().tiles.bc > f1m.points.front().tiles.bc);
}

TEST_CASE("a slope outside its tolerance is reported") {
  SlopeCheck c;
  c.expected = 2.0;
  c.fitted = 1.9;
  c.tolerance = 0.05;
  CHECK_FALSE(c.within());
  c.fitted = 2.04;
  CHECK(c.within());
}

TEST_CASE("below M = d², tiling d wins: the crossover sits near d²/2") {
  // flash2 moves ≈ 8·N²·d²/M, dtiled ≈ 5·N²·d/B with B = √(M/5): equal at M ≈ 0.51·d².
  for (std::uint64_t d : {64u, 128u}) {
    CAPTURE(d);
    const Crossover c = sweep_crossover(context(problem(1, d)), default_sweep());
    CHECK(c.d_squared == d * d);
    REQUIRE(c.m > 0);
    CHECK(c.m / static_cast<double>(c.d_squared) > 0.3);
    CHECK(c.m / static_cast<double>(c.d_squared) < 0.7);
    // Far below d² dtiled moves less; far above, flash2 does.
    CHECK(c.flash2.front().count > c.dtiled.front().count);
    CHECK(c.flash2.back().count < c.dtiled.back().count);
  }
}

TEST_CASE("iosim bounds --pass bwd: Theorem 5, the backward's slopes") {
  for (std::uint64_t d : {64u, 128u}) {
    CAPTURE(d);
    const std::vector<SlopeCheck> checks = sweep_slopes(context(problem(1, d)), default_sweep(Pass::bwd));
    REQUIRE(checks.size() == 5);  // no dtiled backward
    for (const SlopeCheck& c : checks) {
      CAPTURE(c.schedule);
      CAPTURE(c.variable);
      CAPTURE(c.fitted);
      CHECK(c.within());
    }
    // flash2's backward keeps B_r = 16 and grows B_c with M.
    CHECK(checks[4].points.front().tiles.br == 16);
    CHECK(checks[4].points.back().tiles.bc > 8 * checks[4].points.front().tiles.bc);
  }
}

TEST_CASE("the M sweep stays where the bound is tight: M ≥ 8·d²") {
  const std::vector<SlopeCheck> checks = sweep_slopes(context(problem(1, 128), with_sram(16384)), default_sweep());
  for (const SlopeCheck& c : checks) {
    if (c.variable != "M" || c.schedule == "dtiled") continue;
    CHECK(c.points.front().m_elements >= 8 * 128 * 128);
    CHECK(c.within());
  }
}
