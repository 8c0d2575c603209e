// The time model: step profiles, the SM model's instruction counts and bounds, the block schedule's
// waves and tails, and the breakdown a prediction reports.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <stdexcept>

#include "sim/timing/block_schedule.h"
#include "sim/schedule/kernel_family.h"
#include "sim/timing/mva.h"
#include "sim/timing/sm_model.h"
#include "sim/timing/step_profile.h"
#include "sim/timing/time_model.h"
#include "src/config/hardware_config.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

namespace {

HardwareSpec h200() { return config::load_hardware(std::string(IOSIM_SOURCE_DIR) + "/configs/h200.yaml"); }

TimePrediction timed(const std::string& name, const ScheduleContext& ctx, Pass pass = Pass::fwd) {
  const auto s = make_schedule(name, pass, ctx);
  return predict_time(*s, ctx, predict(*s, ctx), ctx.hardware);
}

/// Rates where only the tensor pipe costs anything: one cycle per MMA, every latency `lat`.
SmRates tensor_only(double lat) {
  SmRates r;
  r.clock_hz = 1e9;
  r.mma_interval = 1;
  r.lat.mma_latency = lat;
  return r;
}

}  // namespace

TEST_CASE("a flash2 forward block is a first step, a run of equal steps and an epilogue") {
  const ScheduleContext ctx = context(problem(1024, 64), a100(), tiles(128, 64));
  const auto s = make_schedule("flash2", Pass::fwd, ctx);
  const KernelProfile kp = profile_kernel(*s->kernels()[0], DType::fp16);
  REQUIRE(kp.distinct.size() == 1);  // n is a multiple of B_r: every block alike
  CHECK(kp.profile_of_x.size() == 8);
  const BlockProfile& b = kp.distinct[0];
  CHECK(b.steps == 16);  // 1024 / 64 K/V tiles
  REQUIRE(b.runs.size() == 3);
  CHECK(b.runs[0].count == 1);
  CHECK(b.runs[1].count == 15);
  CHECK(b.runs[2].count == 1);
  // The first step also loads Q_i; every step loads K_j and V_j: 2 × 64 × 64 × 2 B.
  CHECK(b.runs[1].segment.load_bytes == 2.0 * 64 * 64 * 2);
  CHECK(b.runs[0].segment.load_bytes == 2.0 * 64 * 64 * 2 + 128.0 * 64 * 2);
  REQUIRE(b.runs[1].segment.matmuls.size() == 2);
  CHECK(b.runs[1].segment.matmuls[0] == MatmulShape{128, 64, 64});  // S = Q Kᵀ
  CHECK(b.runs[1].segment.matmuls[1] == MatmulShape{128, 64, 64});  // O += P V
  // The epilogue stores O_i and L_i and computes no product.
  CHECK(b.runs[2].segment.matmuls.empty());
  CHECK(b.runs[2].segment.store_bytes == 128.0 * 64 * 2 + 128.0 * 4);
}

TEST_CASE("a causal grid's blocks differ: one profile per Q tile") {
  Problem p = problem(1024, 64);
  p.causal = true;
  const ScheduleContext ctx = context(p, a100(), tiles(128, 64));
  const auto s = make_schedule("flash2", Pass::fwd, ctx);
  const KernelProfile kp = profile_kernel(*s->kernels()[0], DType::fp16);
  CHECK(kp.distinct.size() == 8);
  // Q tile i sees K/V tiles 0 … 2i + 1: 2, 4, …, 16 steps.
  CHECK(kp.distinct[kp.profile_of_x[0]].steps == 2);
  CHECK(kp.distinct[kp.profile_of_x[7]].steps == 16);
}

TEST_CASE("flash2's step as warp instructions: rows split over the warps, Q and P in registers") {
  const KernelFamily& f = family_of("flash2_fwd");
  CHECK(f.name == "fa2-fwd");
  Segment s;
  s.matmuls = {{128, 64, 64}, {128, 64, 64}};
  const BlockShape four{4, 2, 1};
  // Each warp: 32 rows = 2 m16 tiles × 8 n8 tiles × 4 k16 steps = 64 MMAs per product.
  const StepCost c = step_cost(s, false, false, f, four, tensor_only(0));
  // The family's step overhead (integer, conversions, control) for a 128 × 64 × 64 first product over
  // 4 warps' 128 lanes, issued at one a cycle; two stages add the multi-stage loop's own instructions.
  const StepOverhead& o = f.overhead;
  const double one_stage = o.per_step + (o.per_score * 128 * 64 + o.per_row * 128 * 64 + o.per_column * 64 * 64) / 128;
  const double other = one_stage + o.per_pipelined_step;
  CHECK(one_stage > 0);
  CHECK(o.per_pipelined_step > 0);  // measured: fa2-fwd's multi-stage kernels issue more a step (flash2/families.cpp)
  CHECK(c.mix.other == doctest::Approx(other));
  CHECK(step_cost(s, false, false, f, BlockShape{4, 1, 1}, tensor_only(0)).mix.other == doctest::Approx(one_stage));
  CHECK(c.mix.mma == doctest::Approx(128));
  CHECK(c.mix.ldmatrix == doctest::Approx(32));
  CHECK(c.mix.shuffle == doctest::Approx(8));
  CHECK(c.mix.barrier == doctest::Approx(2));
  // 128 MMAs at one cycle each on the tensor pipe; the issue slot also takes K's and V's 16 ldmatrix.x4
  // each (n8 tiles in pairs × k16 steps), the row max's 2 shuffle rounds for 2 m16 tiles of 2 row
  // halves each, the step's two barriers and the overhead, each with the cycles its dispatch loses.
  CHECK(f.waits.dispatch > 0);  // measured: fa2-fwd's kernels lose about a third of a cycle an instruction
  CHECK(c.warp_issue == doctest::Approx((128 + 32 + 8 + 2 + other) * (1 + f.waits.dispatch)));
  CHECK(std::string(c.pipe) == "issue");
  // The chain: each product waits for its 4 dependent MMAs, or its 64 issues, whichever is longer; then
  // the overhead's issues (without the family's waits, whose serial bound is as long at 100-cycle MMAs).
  KernelFamily no_waits = f;
  no_waits.waits = {};
  const StepCost slow = step_cost(s, false, false, no_waits, four, tensor_only(100));
  CHECK(slow.chain == doctest::Approx(2 * 4 * 100 + other));
  // With 1-cycle MMAs the warp's own serial time binds instead: every instruction issued plus the
  // family's measured waits on its results (fixed-latency per instruction, MIO per ldmatrix and shuffle).
  const StepCost fast = step_cost(s, false, false, f, four, tensor_only(1));
  const double instructions = 128 + 32 + 8 + 2 + other;
  // Each warp owns 32 rows, two m16 tiles: the family's MIO wait for warps of more than one tile.
  CHECK(f.waits.mio(32) == f.waits.per_mio_multi_tile);
  const double serial =
      instructions * (1 + f.waits.dispatch + f.waits.per_instruction) + (32 + 8) * f.waits.mio(32);
  CHECK(serial > 2 * 64 + other);
  CHECK(fast.chain == doctest::Approx(serial));
}

TEST_CASE("a warp of one m16 tile waits longer on its ldmatrix'd fragments than a warp of two") {
  // fa2-fwd's measured waits (flash2/fa2_constants.h): 4.6 cycles a MIO instruction with 16 rows a warp,
  // 1.4 with 32; a family that gives one figure uses it for every warp.
  const KernelFamily& f = family_of("flash2_fwd");
  CHECK(f.waits.mio(16) == f.waits.per_mio);
  CHECK(f.waits.mio(16) > 2 * f.waits.mio(32));
  CHECK(f.waits.mio(64) == f.waits.mio(32));
  const DependencyWaits one{2, 15.6, 0};
  CHECK(one.mio(16) == 15.6);
  CHECK(one.mio(32) == 15.6);
  // The same 128 × 64 step with 1-cycle MMAs, where the warp's serial time binds: 8 warps own 16 rows
  // each, 4 warps 32; per warp the 8-warp step has half the products but the larger wait.
  Segment s;
  s.matmuls = {{128, 64, 64}, {128, 64, 64}};
  const StepCost eight = step_cost(s, false, false, f, BlockShape{8, 1, 1}, tensor_only(1));
  KernelFamily flat = f;
  flat.waits.per_mio_multi_tile = 0;
  flat.waits.per_mio = f.waits.per_mio_multi_tile;
  const StepCost eight_flat = step_cost(s, false, false, flat, BlockShape{8, 1, 1}, tensor_only(1));
  const double mio = eight.mix.ldmatrix + eight.mix.shuffle + eight.mix.ex2;
  CHECK(mio > 0);
  const double extra = mio * (f.waits.per_mio - f.waits.per_mio_multi_tile);
  CHECK(eight.chain - eight_flat.chain == doctest::Approx(extra));
  CHECK(eight.sim.wait_mio == f.waits.per_mio);
  const StepCost four = step_cost(s, false, false, f, BlockShape{4, 1, 1}, tensor_only(1));
  CHECK(four.sim.wait_mio == f.waits.per_mio_multi_tile);
}

TEST_CASE("a warp's own waits on its results bound a step: a family with none is faster") {
  const KernelFamily& f = family_of("flash2_bwd");
  CHECK(f.waits.per_instruction > 1);  // measured (flash2/families.cpp): about 2 cycles an instruction
  KernelFamily none = f;
  none.waits = {};
  Segment s;
  s.matmuls = {{64, 64, 64}, {64, 64, 64}, {64, 64, 64}, {64, 64, 64}, {64, 64, 64}};
  const BlockShape four{4, 1, 1};
  const SmRates r = tensor_only(1);
  const StepCost with = step_cost(s, false, false, f, four, r);
  const StepCost without = step_cost(s, false, false, none, four, r);
  CHECK(with.mix.total() == doctest::Approx(without.mix.total()));  // the same instructions
  CHECK(with.chain > 2 * without.chain);
  // One block of four warps: one warp per sub-partition, nothing else to issue in its waits.
  CHECK(step_time(with, four, 1, Overlap::staggered).latency_bound);
  CHECK(step_time(with, four, 1, Overlap::staggered).cycles == doctest::Approx(with.chain));
}

TEST_CASE("a step takes its chain or its blocks' share of the pipes, whichever is longer") {
  StepCost c;
  c.chain = 100;
  c.warp_issue = 30;
  const BlockShape four{4, 1, 1};
  // One block of 4 warps: one warp per sub-partition; the chain binds.
  CHECK(step_time(c, four, 1, Overlap::staggered).cycles == doctest::Approx(100));
  CHECK(step_time(c, four, 1, Overlap::staggered).latency_bound);
  // Four blocks: 4 warps per sub-partition × 30 cycles: the pipes bind.
  CHECK(step_time(c, four, 4, Overlap::staggered).cycles == doctest::Approx(120));
  CHECK_FALSE(step_time(c, four, 4, Overlap::staggered).latency_bound);
}

TEST_CASE("queued warps: one alone takes its chain; more wait for each other on the pipes they share") {
  StepCost c;
  c.chain = 100;
  c.pipe_tensor = 30;
  c.pipe_fp32 = 20;
  c.warp_issue = 30;
  const BlockShape four{4, 1, 1};
  // One warp per sub-partition: its chain, as without queueing.
  CHECK(step_time(c, four, 1, Overlap::queued).cycles == doctest::Approx(100));
  // Two: mean-value analysis with stations of 30 and 20 and a delay of 50 (mva.h), above both bounds
  // (the chain, 2 × 30) and below their sum.
  const double two = mva_cycle_time(std::array{30.0, 20.0, 0.0, 0.0, 0.0, 0.0, 0.0}, 50, 2);
  CHECK(step_time(c, four, 2, Overlap::queued).cycles == doctest::Approx(two));
  CHECK(two > std::max(100.0, 2 * 30.0));
  CHECK(two < 100.0 + 2 * 30.0);
  CHECK(step_time(c, four, 2, Overlap::staggered).cycles == doctest::Approx(100));
  // Many: the busiest pipe's work times the warps.
  CHECK(step_time(c, four, 64, Overlap::queued).cycles == doctest::Approx(64 * 30.0).epsilon(0.05));
  // A warp whose pipes' work exceeds its chain (its own pipes overlap) visits them one after another:
  // alone it takes their sum, no delay.
  c.pipe_fp32 = 90;
  CHECK(step_time(c, four, 1, Overlap::queued).cycles == doctest::Approx(30 + 90));
  CHECK(step_time(c, four, 1, Overlap::staggered).cycles == doctest::Approx(100));
}

TEST_CASE("mean-value analysis refuses more stations than it holds") {
  const std::array<double, kMvaMaxStations + 1> many{};
  CHECK_THROWS_AS((void)mva_cycle_time(many, 0, 2), std::invalid_argument);
}

TEST_CASE("mean-value analysis: exact values of small closed networks") {
  // One station of 1 cycle, a delay of 1: n = 1 cycles in 2; n = 2 finds half a customer queued,
  // resides 1.5 and cycles in 2.5 (Lazowska et al. 1984, §6.3, by hand).
  CHECK(mva_cycle_time(std::array{1.0}, 1, 1) == doctest::Approx(2));
  CHECK(mva_cycle_time(std::array{1.0}, 1, 2) == doctest::Approx(2.5));
  // Two stations of 2 and 1, no delay, two customers: 10/3 + 4/3.
  CHECK(mva_cycle_time(std::array{2.0, 1.0}, 0, 2) == doctest::Approx(14.0 / 3));
  CHECK(mva_cycle_time(std::array{2.0, 1.0}, 0, 0) == 0);
  // Throughput never passes the bottleneck's: cycle time ≥ customers × the largest demand.
  for (std::uint32_t n = 1; n <= 32; ++n) CHECK(mva_cycle_time(std::array{3.0, 1.0}, 10, n) >= 3.0 * n - 1e-9);
}

TEST_CASE("loads issued `lead` steps ahead hide their latency behind the steps between") {
  StepCost c;
  c.chain = 100;
  c.memory = 250;
  c.pipelined = true;
  c.lead = 1;
  CHECK(step_time(c, BlockShape{4, 2, 1}, 1, Overlap::staggered).cycles == doctest::Approx(100 + 150));  // one step covers 100
  c.lead = 2;
  CHECK(step_time(c, BlockShape{4, 3, 1}, 1, Overlap::staggered).cycles == doctest::Approx(100 + 50));   // two steps cover 200
  c.lead = 3;
  CHECK(step_time(c, BlockShape{4, 4, 1}, 1, Overlap::staggered).cycles == doctest::Approx(100));        // fully hidden
  c.pipelined = false;
  CHECK(step_time(c, BlockShape{4, 4, 1}, 1, Overlap::staggered).cycles == doctest::Approx(350));  // waited for at once
}

TEST_CASE("a schedule's pipelined loads lead by stages − 1 steps") {
  const KernelFamily& f = family_of("flash2_fwd");
  Segment s;
  s.load_bytes = 16384;
  const SmRates r = sm_rates(h200(), DType::fp16);
  CHECK(step_cost(s, false, false, f, BlockShape{4, 3, 1}, r).lead == 2);
  CHECK(step_cost(s, true, false, f, BlockShape{4, 3, 1}, r).lead == 0);  // the first step's loads were not ahead
}

TEST_CASE("the block schedule: full waves, a partial last wave, and latency that more blocks hide") {
  const auto one = [](std::uint64_t) { return std::uint32_t{0}; };
  // Latency-bound blocks: 100 cycles however many share an SM.
  const auto flat = [](std::uint32_t, std::uint32_t) { return 100.0; };
  // 10 blocks on 4 SMs, 2 at a time each: waves of 8, then 2.
  GridTiming g = schedule_blocks(10, 4, 2, one, flat);
  CHECK(g.makespan == doctest::Approx(200));
  CHECK(g.ideal == doctest::Approx(10 * 100.0 / 8));
  // Issue-bound blocks: b resident take b × 100 cycles; the last wave's 2 blocks run alone, 100 each.
  const auto shared = [](std::uint32_t, std::uint32_t b) { return 100.0 * b; };
  g = schedule_blocks(10, 4, 2, one, shared);
  CHECK(g.makespan == doctest::Approx(300));
  // Unequal blocks pack: a long block on one SM while the others take the short ones.
  const auto two = [](std::uint64_t i) { return std::uint32_t(i == 0 ? 1 : 0); };
  const auto lengths = [](std::uint32_t p, std::uint32_t) { return p == 1 ? 400.0 : 100.0; };
  g = schedule_blocks(7, 2, 1, two, lengths);
  CHECK(g.makespan == doctest::Approx(500));  // SM 0: the long one, then one short; SM 1: five short
}

TEST_CASE("a prediction's breakdown adds up to its time") {
  const ScheduleContext ctx = context(problem(4096, 64, 1, 16), h200());
  for (const char* name : {"flash1", "flash2", "naive"}) {
    for (Pass pass : {Pass::fwd, Pass::bwd}) {
      const TimePrediction t = timed(name, ctx, pass);
      for (const KernelTime& k : t.kernels) {
        CAPTURE(name);
        CAPTURE(k.name);
        CHECK(k.total_s == doctest::Approx(k.launch_s + k.issue_s + k.latency_s + k.tail_s + k.memory_s));
        CHECK(k.issue_s >= 0);
        CHECK(k.latency_s >= 0);
        CHECK(k.tail_s >= -1e-12);
      }
    }
  }
}

TEST_CASE("standard attention at n = 4096 is DRAM-bound: S and P cross HBM") {
  const TimePrediction t = timed("naive", context(problem(4096, 64, 1, 8)));
  CHECK(t.binding == "DRAM");
  // Its softmax kernel reads S and writes P: 2 × 8 × 4096² × 2 B = 537 MB at 1,555 GB/s ≈ 0.345 ms.
  REQUIRE(t.kernels.size() == 3);
  CHECK(t.kernels[1].binding == "DRAM");
  CHECK(t.kernels[1].dram_s == doctest::Approx(2.0 * 8 * 4096 * 4096 * 2 / 1555e9).epsilon(0.01));
}

TEST_CASE("a tiny problem is bound by the launch") {
  const TimePrediction t = timed("flash2", context(problem(16, 16)));
  CHECK(t.binding == "launch");
  CHECK(t.total_s == doctest::Approx(4e-6).epsilon(0.2));
}

TEST_CASE("flash1's single block per head waits on every step's loads: latency is much of its time") {
  const TimePrediction t = timed("flash1", context(problem(4096, 64, 1, 132), h200()));
  REQUIRE(t.kernels.size() == 2);
  CHECK(t.kernels[1].family == "fa1-fwd");
  // Each inner step loads Q_i, O_i, l_i, m_i and waits for them: an L2 round trip (~290 cycles) a step.
  CHECK(t.kernels[1].latency_s > 0.15 * t.kernels[1].total_s);
}

TEST_CASE("four warps of 16 rows each are slower than 32 rows each: the chain is not hidden") {
  // The H200 ran flash2's forward at n = 4096, d = 64 with a 64 × 64 tile 51% slower than with
  // 128 × 64 (results/validation-history.md, "Time: the roofline of the 152-kernel grid"); the
  // roofline gave both the same time.
  const HardwareSpec hw = h200();
  Problem p = problem(4096, 64, 1, 32);
  const double t64 = timed("flash2", context(p, hw, tiles(64, 64))).total_s;
  const double t128 = timed("flash2", context(p, hw, tiles(128, 64))).total_s;
  CHECK(t64 > 1.1 * t128);
}

TEST_CASE("tensor peaks by type") {
  const HardwareSpec hw = a100();
  CHECK(tensor_peak(hw, DType::fp16) == doctest::Approx(312e12));
  CHECK(tensor_peak(hw, DType::fp32) == doctest::Approx(19.5e12));
  CHECK(tensor_peak(hw, DType::fp8) == 0);
}

TEST_CASE("one block per head leaves SMs idle: flash1 with 16 heads uses 16 of 108 SMs") {
  const ScheduleContext ctx = context(problem(4096, 64, 1, 16));
  const auto s = make_schedule("flash1", Pass::fwd, ctx);
  const Prediction p = predict(*s, ctx);
  REQUIRE(p.kernels.size() == 2);
  CHECK(p.kernels[1].blocks == 16);
  CHECK(p.kernels[1].waves < 0.2);
  CHECK(p.kernels[1].busiest.matmul_flops == doctest::Approx(4.0 * 4096 * 4096 * 64));
}

TEST_CASE("the roofline: measured ceilings replace the datasheet's rates") {
  const ScheduleContext ctx = context(problem(2048, 128, 1, 16));
  const auto s = make_schedule("flash2", Pass::fwd, ctx);
  const Prediction p = predict(*s, ctx);
  HardwareSpec hw = ctx.hardware;
  const double dram = static_cast<double>((p.kernels[0].dram_read + p.kernels[0].dram_write).value);
  const KernelTime peak = roofline_time(p.kernels[0], dram, p.sector_bytes, hw, DType::fp16);
  hw.measured.tensor_fp16_tflops = hw.peak.tensor_fp16_tflops / 2;
  hw.measured.exp2_g_per_s = hw.sm.sfu_ops_per_clock * hw.clock.sm_mhz * 1e6 * hw.sm.count / 1e9 / 4;
  hw.measured.hbm_gb_per_s = hw.hbm.bandwidth_gb_per_s / 2;
  const KernelTime meas = roofline_time(p.kernels[0], dram, p.sector_bytes, hw, DType::fp16);
  CHECK(meas.tensor_s == doctest::Approx(2 * peak.tensor_s));
  CHECK(meas.special_s == doctest::Approx(4 * peak.special_s));
  CHECK(meas.dram_s == doctest::Approx(2 * peak.dram_s));
  CHECK(meas.vector_s == doctest::Approx(peak.vector_s));
  CHECK(meas.total_s > peak.total_s);
  CHECK(tensor_rate(hw, DType::bf16) == doctest::Approx(tensor_peak(hw, DType::bf16)));
  CHECK(tensor_rate(hw, DType::fp16) == doctest::Approx(tensor_peak(hw, DType::fp16) / 2));
}

TEST_CASE("at the datasheet's peaks the roofline is a lower bound on the SM model's time") {
  const ScheduleContext ctx = context(problem(4096, 128, 2, 16), h200());
  for (const char* name : {"flash1", "flash2"}) {
    const auto s = make_schedule(name, Pass::fwd, ctx);
    const Prediction p = predict(*s, ctx);
    HardwareSpec datasheet = ctx.hardware;
    datasheet.measured = {};
    CHECK(predict_roofline(p, datasheet, DType::fp16).total_s <= predict_time(*s, ctx, p, ctx.hardware).total_s);
  }
}

TEST_CASE("a step's atomic adds are bounded by the SM's share of the L2's reduction rate") {
  const KernelFamily& f = family_of("flash2_bwd");
  Segment s;
  s.reduce_bytes = 64.0 * 64 * 4;  // a 64 × 64 fp32 dQ tile
  SmRates r = tensor_only(0);
  const BlockShape four{4, 1, 1};
  CHECK(step_cost(s, false, false, f, four, r).block_reduce == 0);  // rate not measured: no bound
  r.red_bytes_per_cycle = 16;
  const StepCost c = step_cost(s, false, false, f, four, r);
  CHECK(c.block_reduce == doctest::Approx(64.0 * 64 * 4 / 16));
  CHECK(c.mix.reduce == doctest::Approx(64.0 * 64 / 128));  // one RED per lane and float
  // Two resident blocks share the SM's rate: the step takes twice as long.
  CHECK(step_time(c, four, 2, Overlap::staggered).cycles == doctest::Approx(2 * 1024.0));
  // Queued, the two blocks' warps also wait for each other at the reduction: longer still.
  CHECK(step_time(c, four, 2, Overlap::queued).cycles > 2 * 1024.0);
  // Unless a product follows the reductions: then the bound is their rate, not a wait.
  KernelFamily overlapped = f;
  overlapped.reductions_overlapped = true;
  CHECK(step_time(step_cost(s, false, false, overlapped, four, r), four, 2, Overlap::queued).cycles ==
        doctest::Approx(2 * 1024.0));
}

TEST_CASE("queued, reductions a product follows add only their issue slots below their rate") {
  KernelFamily f = family_of("flash2_bwd");
  f.reductions_overlapped = true;  // as PyTorch's FlashAttention-2 backward (torch-fa2-bwd), alone
  for (const KernelFamily& k : kernel_families()) CHECK(k.reductions_overlapped == (k.name == "torch-fa2-bwd"));
  Segment s;
  s.matmuls = {{128, 128, 64}};
  s.reduce_bytes = 128.0 * 64 * 4;  // a 128 × 64 fp32 dQ tile: 32 KiB
  SmRates r = tensor_only(0);
  const BlockShape eight{8, 1, 1};
  const StepCost unbounded = step_cost(s, false, false, f, eight, r);  // rate not measured: no bound
  const double alone = step_time(unbounded, eight, 1, Overlap::queued).cycles;
  REQUIRE(alone > 0);
  // The SM's share of the rate takes half the step: the step is as long as without the bound.
  r.red_bytes_per_cycle = s.reduce_bytes / (alone / 2);
  const StepCost below = step_cost(s, false, false, f, eight, r);
  CHECK(below.block_reduce == doctest::Approx(alone / 2));
  CHECK(below.mix.reduce == unbounded.mix.reduce);
  CHECK(step_time(below, eight, 1, Overlap::queued).cycles == doctest::Approx(alone));
  // Four times the step: the rate is the step.
  r.red_bytes_per_cycle = s.reduce_bytes / (4 * alone);
  CHECK(step_time(step_cost(s, false, false, f, eight, r), eight, 1, Overlap::queued).cycles ==
        doctest::Approx(4 * alone));
}

TEST_CASE("decoding is priced as its kernel runs: the stages it keeps, its warps on columns for few rows") {
  // The menu's decode kernels keep 1 to 3 copies of K_j and V_j (256 × 64 fp16 each) in shared memory.
  const Problem p = problem(1, 64, 2, 32, 16384);
  std::uint64_t one_stage = 0;
  for (std::uint32_t stages = 1; stages <= 3; ++stages) {
    ScheduleContext ctx = context(p, h200());
    ctx.kernel.stages = stages;
    const auto s = make_schedule("flashdecode", Pass::fwd, ctx);
    CAPTURE(stages);
    CHECK(s->kernel_config().stages == stages);
    if (stages == 1) one_stage = s->sram().peak().value;
    CHECK(s->sram().peak().value - one_stage == (stages - 1) * 2 * 256 * 64 * 2);  // the K/V ring's copies
  }
  // A decode step of one m16 tile of rows (up to 16 query heads of a group): the four warps split the
  // 256 columns, each 16 × 64 of S (4 k16 steps of d) and its quarter of P V (16 × 64 over 64 keys).
  const KernelFamily& f = family_of("flashdecode_split");
  Segment s;
  s.matmuls = {{4, 256, 64}, {4, 64, 256}};
  const StepCost c = step_cost(s, false, false, f, BlockShape{4, 1, 1}, tensor_only(0));
  CHECK(c.mix.mma == doctest::Approx(2 * 8 * 4));  // per product: 1 m16 × 8 n8 × 4 k16
  // More rows than one tile: rows over the warps, as FlashAttention-2's forward.
  Segment rows;
  rows.matmuls = {{64, 256, 64}, {64, 64, 256}};
  const StepCost r = step_cost(rows, false, false, f, BlockShape{4, 1, 1}, tensor_only(0));
  CHECK(r.mix.mma == doctest::Approx(32 * 4 + 8 * 16));  // S: 32 n8 × 4 k16; P V: 8 n8 × 16 k16
}

TEST_CASE("a TMA-loaded step is bounded by its copies at the SM's TMA unit") {
  const KernelFamily& f = family_of("flash3_fwd");
  REQUIRE(f.hopper.tma_loads);
  Segment s;
  s.load_bytes = 2.0 * 128 * 128 * 2;  // K_j and V_j, 128 × 128 fp16 each
  SmRates r = tensor_only(0);
  BlockShape shape{8, 2, 1};
  shape.tma_copy_bytes = 128 * kTmaRowBytes;  // a copy a tile: 4 copies (d = 128 is two 128-byte boxes wide)
  CHECK(step_cost(s, false, false, f, shape, r).block_tma == 0);  // the figure not known: no bound
  r.lat.tma_copy_cycles = 100;
  CHECK(step_cost(s, false, false, f, shape, r).block_tma == doctest::Approx(4 * 100));
  shape.tma_copy_bytes = 16 * kTmaRowBytes;  // 16-row boxes: 32 copies
  const StepCost c = step_cost(s, false, false, f, shape, r);
  CHECK(c.block_tma == doctest::Approx(32 * 100));
  CHECK(c.mix.load == 0);  // no per-lane instruction
  CHECK(step_time(c, shape, 1, f.overlap).cycles >= 3200);
  CHECK(step_time(c, shape, 2, f.overlap).cycles >= 6400);  // two blocks share the SM's TMA unit
}
