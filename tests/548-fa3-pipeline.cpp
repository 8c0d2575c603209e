// How FlashAttention-3's two loops are priced (sm_model.h): the forward's pipelined loop (the softmax
// of S_j waits for S_j, P_{j−1} V_{j−1} runs beside it; a block pays its loop's fill and drain once)
// and the backward's lockstep (the consumers meet at the dS barrier every step, so none of their
// element-wise work hides behind another warpgroup's products).
#include <doctest/doctest.h>

#include "sim/schedule/kernel_family.h"
#include "sim/timing/sm_model.h"
#include "sim/timing/step_profile.h"

using namespace iosim;

namespace {

/// A sub-partition of round figures: m16n8k16 every cycle, FP32 every cycle, wgmma's latency 10, and
/// an FP32 latency of 400 (the softmax's chain, so that the steps below are bound by their chains).
SmRates round_rates() {
  SmRates r;
  r.clock_hz = 1e9;
  r.wgmma_interval = 1;
  r.fp32_interval = 1;
  r.ex2_interval = 1;
  r.shfl_interval = 1;
  r.lat.wgmma_latency = 10;
  r.lat.fma_latency = 400;
  return r;
}

/// FP32 work of `per_warp` instructions a warp for eight warps.
constexpr double fp32_ops(double per_warp) { return per_warp * 8 * 32; }

/// The forward's step for one warpgroup of 64 rows: S = Q Kᵀ (64 × 128, d = 128) and O += P V.
Segment fa3_fwd_step(double vector_flops) {
  Segment s;
  s.matmuls = {{128, 128, 128}, {128, 128, 128}};
  s.vector_flops = vector_flops;
  return s;
}

}  // namespace

TEST_CASE("flash3's forward: the softmax waits for its S, the other product runs beside it") {
  KernelFamily f = family_of("flash3_fwd");
  f.overhead = {};
  f.waits = {};
  f.barriers_per_step = 0;
  f.shuffle_rounds_per_step = 0;
  const BlockShape eight{8, 2, 1};  // two consumer warpgroups
  const SmRates r = round_rates();
  // Each product: 64 rows a warpgroup, 16 of them a warp: 1 × 16 × 8 m16n8k16s = 128 cycles.
  const StepCost tiny = step_cost(fa3_fwd_step(0), false, false, f, eight, r);
  CHECK(tiny.first_product_chain == doctest::Approx(128));
  CHECK(tiny.last_product_chain == doctest::Approx(128));
  CHECK(tiny.product_chain == doctest::Approx(256));
  // A softmax of 64 FP32 instructions a warp and their latency: 64 + 400 cycles, after S's 128; P V's
  // 128 runs beside it.
  const StepCost big = step_cost(fa3_fwd_step(fp32_ops(64)), false, false, f, eight, r);
  CHECK(big.chain == doctest::Approx(128 + 464));
  // A softmax shorter than P V (its 64 instructions and 16 wgmma issued, no latency): the products bind.
  SmRates quick = r;
  quick.lat.fma_latency = 0;
  const StepCost small = step_cost(fa3_fwd_step(fp32_ops(64)), false, false, f, eight, quick);
  CHECK(small.chain == doctest::Approx(256));
}

TEST_CASE("flash3's forward block pays its pipelined loop's drain once: the other S and the last P V") {
  KernelFamily f = family_of("flash3_fwd");
  f.overhead = {};
  f.waits = {};
  f.barriers_per_step = 0;
  f.shuffle_rounds_per_step = 0;
  const BlockShape eight{8, 2, 1};
  const SmRates r = round_rates();
  BlockProfile p;
  p.runs = {{fa3_fwd_step(fp32_ops(64)), 4}};
  p.steps = 4;
  KernelFamily plain = f;
  plain.hopper.overlap_products = false;
  const BlockTime pipelined = block_time(p, f, eight, r, 1);
  // Four steps of max(chain 592, two warps × 256 on the tensor pipe) = 592, then one S (128) of the
  // other warpgroup and the last P V (128).
  CHECK(pipelined.cycles == doctest::Approx(4 * 592 + 128 + 128));
  // Without the overlap the chain is the products' then the softmax's (720) and nothing is added.
  CHECK(block_time(p, plain, eight, r, 1).cycles == doctest::Approx(4 * 720));
}

TEST_CASE("lockstep warpgroups: their products, then the rest of one chain, or the larger bound") {
  StepCost c;
  c.chain = 300;
  c.product_chain = 200;
  c.pipe_tensor = 150;
  c.warp_issue = 150;
  const BlockShape eight{8, 1, 1};  // two warps a sub-partition
  // Staggered: the larger of the chain (300) and 2 × 150.
  CHECK(step_time(c, eight, 1, Overlap::staggered).cycles == doctest::Approx(300));
  // Lockstep: 2 × 150 of products, then 100 that is not products.
  CHECK(step_time(c, eight, 1, Overlap::lockstep).cycles == doctest::Approx(400));
  // A chain of products only: nothing to add, the pipes bind.
  c.product_chain = 300;
  CHECK(step_time(c, eight, 1, Overlap::lockstep).cycles == doctest::Approx(300));
  CHECK(family_of("flash3_bwd").overlap == Overlap::lockstep);
}
