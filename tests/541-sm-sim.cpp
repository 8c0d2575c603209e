// The discrete-event simulation of one SM's warps (sim/timing/sm_sim.h) on steps whose periods follow
// by hand: a warp alone, a pipe shared by the warps of a sub-partition, the issue slot, a barrier's skew,
// a load's round trip exposed or covered by the steps in flight, the SM's shared memory.
#include <doctest/doctest.h>

#include "sim/timing/sm_sim.h"

using namespace iosim;

namespace {

/// A step of `other` plain instructions and nothing else.
WarpStep plain(double other) {
  WarpStep s;
  s.other = other;
  return s;
}

}  // namespace

TEST_CASE("no warps, no blocks or no instructions: nothing to time") {
  CHECK(simulate_sm(plain(10), 0, 1) == 0);
  CHECK(simulate_sm(plain(10), 4, 0) == 0);
  CHECK(simulate_sm(WarpStep{}, 4, 2) == 0);
  CHECK(simulate_sm(plain(0.4), 4, 2) == 0);  // rounds to no instruction
}

TEST_CASE("without a barrier each warp waits for its own loads only") {
  WarpStep s = plain(200);
  s.load = 1;
  s.memory = 600;
  // One stage: each step waits for its own load's round trip, then its 200.
  CHECK(simulate_sm(s, 4, 1) == doctest::Approx(1 + 600 + 200).epsilon(0.01));
  s.lead = 1;
  CHECK(simulate_sm(s, 4, 1) == doctest::Approx((1 + 600 + 200) / 2.0).epsilon(0.03));
}

TEST_CASE("the softmax's pipes: FP32, ex2 and shuffles each busy for their interval") {
  WarpStep s;
  s.ex2 = 20;
  s.ex2_interval = 8;
  CHECK(simulate_sm(s, 1, 1) == doctest::Approx(20 * 8));
  // FP32 at one a cycle and ex2 at one in 8 interleave: the ex2 pipe bounds it.
  s.fp32 = 60;
  s.fp32_interval = 1;
  CHECK(simulate_sm(s, 1, 1) == doctest::Approx(20 * 8).epsilon(0.05));
  WarpStep h;
  h.shuffle = 30;
  h.shfl_interval = 2;
  h.wait_mio = 3;  // a shuffle's own wait (1 + 3) is longer than its pipe's interval
  CHECK(simulate_sm(h, 1, 1) == doctest::Approx(30 * 4));
}

TEST_CASE("atomic reductions queue at the SM's share of the L2's reduction rate") {
  WarpStep s = plain(100);
  s.reduce = 20;
  s.reduce_cycles = 200;  // 10 cycles each
  // 4 warps, one a sub-partition: 80 reductions 10 cycles apart bound the step.
  CHECK(simulate_sm(s, 4, 1) == doctest::Approx(80 * 10).epsilon(0.05));
  s.reduce_cycles = 0;  // not simulated: only their issue slots
  CHECK(simulate_sm(s, 4, 1) == doctest::Approx(120));
}

TEST_CASE("a warp alone issues its step at its own pace: 1 + its waits a cycle") {
  WarpStep s = plain(100);
  CHECK(simulate_sm(s, 1, 1) == doctest::Approx(100));
  s.wait = 1.5;
  CHECK(simulate_sm(s, 1, 1) == doctest::Approx(250));
  // The MIO waits come on top for ldmatrix, shuffles and ex2 only.
  s.wait_mio = 4;
  s.shuffle = 10;
  CHECK(simulate_sm(s, 1, 1) == doctest::Approx(110 * 2.5 + 10 * 4));
}

TEST_CASE("warps of one sub-partition share its issue slot; the four sub-partitions do not") {
  const WarpStep s = plain(100);
  // 4 warps of one block: one a sub-partition, each alone on its slot.
  CHECK(simulate_sm(s, 4, 1) == doctest::Approx(100));
  // 8 warps: two a sub-partition, one instruction a cycle between them.
  CHECK(simulate_sm(s, 8, 1) == doctest::Approx(200));
  // Waits leave room for another warp: 2 warps that each issue every 2 cycles fill one slot.
  WarpStep w = plain(100);
  w.wait = 1;
  CHECK(simulate_sm(w, 8, 1) == doctest::Approx(200));
  CHECK(simulate_sm(w, 4, 1) == doctest::Approx(200));
}

TEST_CASE("a dispatch stall takes the issue slot, where a wait leaves it to another warp") {
  WarpStep d = plain(100);
  d.dispatch = 0.5;
  // Alone: 1.5 cycles an instruction, as a wait of 0.5 would be.
  CHECK(simulate_sm(d, 4, 1) == doctest::Approx(150));
  // Two warps a sub-partition: the lost half-cycles are the slot's, so 2 × 100 × 1.5 ...
  CHECK(simulate_sm(d, 8, 1) == doctest::Approx(300));
  // ... where with a wait the other warp issues in them: 2 × 100.
  WarpStep w = plain(100);
  w.wait = 0.5;
  CHECK(simulate_sm(w, 8, 1) == doctest::Approx(200));
}

TEST_CASE("a pipe busy for its interval bounds the warps that share it") {
  WarpStep s;
  s.mma = 50;
  s.mma_interval = 8;
  // One warp: 50 MMAs 8 cycles apart, the next step's first 8 cycles after the last.
  CHECK(simulate_sm(s, 1, 1) == doctest::Approx(50 * 8));
  // Three blocks of 4 warps: 3 warps a sub-partition, 150 MMAs 8 cycles apart.
  CHECK(simulate_sm(s, 4, 3) == doctest::Approx(150 * 8).epsilon(0.02));
}

TEST_CASE("a barrier holds a block's warps until the last arrives, plus its latency") {
  WarpStep s = plain(100);
  s.barriers = 1;
  s.bar_latency = 20;
  CHECK(simulate_sm(s, 4, 1) == doctest::Approx(1 + 20 + 100));
  // 8 warps: two a sub-partition share the slot; the block waits for both.
  CHECK(simulate_sm(s, 8, 1) == doctest::Approx(2 * 101 + 20).epsilon(0.01));
}

TEST_CASE("a barrier costs the block its skew: two blocks' warps that share sub-partitions") {
  // Without barriers two blocks of 8 warps (4 a sub-partition) keep each slot busy: 400 a step.
  WarpStep s = plain(100);
  s.wait = 3;
  const double free = simulate_sm(s, 8, 2);
  CHECK(free == doctest::Approx(400).epsilon(0.01));
  // Barriers every step cannot make it faster than the slot allows; with their latency, the slot
  // idles while a block waits at one and the other cannot fill all of it.
  s.barriers = 2;
  s.bar_latency = 24;
  const double held = simulate_sm(s, 8, 2);
  CHECK(held >= free * 0.999);
  CHECK(held > free + 1);
}

TEST_CASE("a load's round trip: exposed with one stage, covered by the steps in flight") {
  WarpStep s = plain(200);
  s.load = 1;
  s.barriers = 1;
  s.memory = 600;
  // The load, then its round trip (the barrier's issue inside it), then the step's 200.
  const double exposed = simulate_sm(s, 4, 1);
  CHECK(exposed == doctest::Approx(600 + 200).epsilon(0.01));
  // Issued L steps ahead: L + 1 steps share one round trip and their 200 each, if that is longer
  // than the step's own 202 cycles.
  s.lead = 1;
  CHECK(simulate_sm(s, 4, 1) == doctest::Approx((600 + 200) / 2.0).epsilon(0.02));
  s.lead = 2;
  // (The steps come in a pattern of three, two short and one long: a window of whole patterns
  // is exact, the window measured is within 3%.)
  CHECK(simulate_sm(s, 4, 1) == doctest::Approx((600 + 200) / 3.0).epsilon(0.03));
  s.memory = 100;  // a round trip shorter than the steps between: fully hidden
  CHECK(simulate_sm(s, 4, 1) == doctest::Approx(202).epsilon(0.01));
}

TEST_CASE("the SM's shared memory is one resource for all four sub-partitions") {
  WarpStep s;
  s.ldmatrix = 10;
  s.smem_cycles = 40;  // 4 cycles of the SM's shared memory per ldmatrix
  // One warp: an ldmatrix every 4 cycles.
  CHECK(simulate_sm(s, 1, 1) == doctest::Approx(10 * 4));
  // 4 warps on four sub-partitions still share it: 40 ldmatrix 4 cycles apart.
  CHECK(simulate_sm(s, 4, 1) == doctest::Approx(40 * 4).epsilon(0.03));
}

TEST_CASE("the answer is the same asked twice, and the steady state does not drift") {
  WarpStep s;
  s.mma = 32;
  s.ldmatrix = 12;
  s.fp32 = 80;
  s.ex2 = 16;
  s.shuffle = 8;
  s.other = 120;
  s.barriers = 2;
  s.mma_interval = 8;
  s.fp32_interval = 1;
  s.ex2_interval = 8;
  s.shfl_interval = 2;
  s.smem_cycles = 48;
  s.wait = 1.3;
  s.wait_mio = 3.8;
  s.bar_latency = 24;
  s.memory = 700;
  s.lead = 1;
  const double a = simulate_sm(s, 4, 5);
  CHECK(a > 0);
  CHECK(simulate_sm(s, 4, 5) == a);
  // More blocks never make a block's step faster.
  double before = 0;
  for (std::uint32_t b = 1; b <= 6; ++b) {
    const double t = simulate_sm(s, 4, b);
    CAPTURE(b);
    CHECK(t >= before * 0.98);
    before = t;
  }
}
