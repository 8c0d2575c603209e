// The wgmma figures of `iosim calibrate` in the SM model (sm_model.h): a measured wgmma_interval (cycles
// of one SM per m64n128k16) becomes the model's cycles of one sub-partition per m16n8k16 by a closed
// form, a measured wgmma_latency replaces mma_latency in the wgmma families' chain, and without them
// every figure is today's: the cuBLAS GEMM's rate and mma.sync's latency.
#include <doctest/doctest.h>

#include "sim/schedule/kernel_family.h"
#include "sim/timing/sm_model.h"
#include "src/config/hardware_config.h"

using namespace iosim;

namespace {

HardwareSpec h200() { return config::load_hardware(std::string(IOSIM_SOURCE_DIR) + "/configs/h200.yaml"); }

/// Today's wgmma_interval: the GEMM's share of the fp16 peak applied to the type's peak, in cycles of
/// one sub-partition per m16n8k16 (2·16·8·16 FLOPs) at the measured clock.
double gemm_derived(const HardwareSpec& hw, double type_tflops) {
  const double smsp_cycles_per_s = hw.sm.count * 4.0 * hw.measured.pipeline.clock_mhz * 1e6;
  const double rate = type_tflops * 1e12 * hw.measured.gemm_fp16_tflops / hw.peak.tensor_fp16_tflops;
  return 4096.0 / (rate / smsp_cycles_per_s);
}

/// One step of FlashAttention-3's forward on the H200's two consumer warpgroups.
StepCost fa3_step(const HardwareSpec& hw, const Segment& s) {
  BlockShape shape;
  shape.warps = 8;
  shape.stages = 2;
  return step_cost(s, false, false, family_of("flash3_fwd"), shape, sm_rates(hw, DType::fp16));
}

}  // namespace

TEST_CASE("wgmma_interval per SM and m64n128k16 → per sub-partition and m16n8k16: × 4 / 64") {
  CHECK(kMmaPerM64n128k16 == 64);
  CHECK(wgmma_interval_per_smsp(64) == 4);    // 4096 FLOPs a cycle of one SM: the GH100's dense fp16
  CHECK(wgmma_interval_per_smsp(80) == 5);
  CHECK(wgmma_interval_per_smsp(66.5) == doctest::Approx(66.5 / 16));

  HardwareSpec hw = h200();
  hw.measured.pipeline.wgmma_interval = 72;
  CHECK(sm_rates(hw, DType::fp16).wgmma_interval == doctest::Approx(72.0 / 16));
  // bf16 at the datasheet's ratio of peaks (989.4 / 989.4), fp8 at half (989.4 / 1978.9).
  CHECK(sm_rates(hw, DType::bf16).wgmma_interval == doctest::Approx(72.0 / 16));
  CHECK(sm_rates(hw, DType::fp8).wgmma_interval == doctest::Approx(72.0 / 16 * 989.4 / 1978.9));
  // fp32 is no wgmma type: the derived rate stays.
  CHECK(sm_rates(hw, DType::fp32).wgmma_interval == sm_rates(h200(), DType::fp32).wgmma_interval);

  // The two routes agree where they describe one rate: the GEMM's 756 TFLOP/s as cycles of one SM per
  // m64n128k16 at the measured clock, 2·64·128·16 · 132 · 1798 MHz / 756 TFLOP/s.
  const HardwareSpec base = h200();
  const double gemm_cycles = 2.0 * 64 * 128 * 16 * base.sm.count * base.measured.pipeline.clock_mhz * 1e6 /
                             (base.measured.gemm_fp16_tflops * 1e12);
  hw.measured.pipeline.wgmma_interval = gemm_cycles;
  CHECK(sm_rates(hw, DType::fp16).wgmma_interval == doctest::Approx(sm_rates(base, DType::fp16).wgmma_interval));
  // A pipeline: default stands in where nothing is measured, as for every other figure.
  HardwareSpec by_default = h200();
  by_default.pipeline.wgmma_interval = 80;
  CHECK(sm_rates(by_default, DType::fp16).wgmma_interval == 5);
}

TEST_CASE("without wgmma figures the rates are today's, bit for bit") {
  const HardwareSpec hw = h200();
  REQUIRE(hw.pipeline.wgmma_interval == 0);  // the shipped config gives none: not measured yet
  REQUIRE(hw.measured.pipeline.wgmma_interval == 0);
  REQUIRE(hw.measured.pipeline.wgmma_latency == 0);
  CHECK(sm_rates(hw, DType::fp16).wgmma_interval == doctest::Approx(gemm_derived(hw, 989.4)).epsilon(1e-12));
  CHECK(sm_rates(hw, DType::fp8).wgmma_interval == doctest::Approx(gemm_derived(hw, 1978.9)).epsilon(1e-12));
  // Writing 0 (not known) changes nothing.
  HardwareSpec zeros = hw;
  zeros.pipeline.wgmma_latency = zeros.pipeline.wgmma_interval = 0;
  zeros.measured.pipeline.wgmma_latency = zeros.measured.pipeline.wgmma_interval = 0;
  for (DType t : {DType::fp16, DType::bf16, DType::fp8, DType::fp32}) {
    CHECK(sm_rates(zeros, t).wgmma_interval == sm_rates(hw, t).wgmma_interval);
  }
}

TEST_CASE("wgmma_latency replaces mma_latency in a wgmma family's chain; without it mma_latency stands in") {
  // One small product: a single wgmma per warp, so its latency, not its tensor work, is its chain.
  Segment s;
  s.matmuls = {{64, 8, 16}};
  HardwareSpec stand_in = h200();
  stand_in.measured.pipeline.mma_latency = 500;
  HardwareSpec measured = h200();
  measured.measured.pipeline.mma_latency = 24.1;
  measured.measured.pipeline.wgmma_latency = 500;
  const StepCost a = fa3_step(stand_in, s);
  const StepCost b = fa3_step(measured, s);
  CHECK(a.chain >= 500);
  CHECK(b.chain == a.chain);  // the same 500 cycles, by either route
  HardwareSpec fast = measured;
  fast.measured.pipeline.wgmma_latency = 100;
  CHECK(fa3_step(fast, s).chain < a.chain);
  // mma.sync families keep mma_latency whatever wgmma's is.
  BlockShape shape;
  const KernelFamily& fa2 = family_of("flash2_fwd");
  CHECK(step_cost(s, false, false, fa2, shape, sm_rates(measured, DType::fp16)).chain ==
        step_cost(s, false, false, fa2, shape, sm_rates(h200(), DType::fp16)).chain);
}

TEST_CASE("measured.wgmma_clock_mhz: the wgmma families' cycles at the clock under flash3, per-second rates kept") {
  const HardwareSpec hw = h200();
  REQUIRE(hw.measured.wgmma_clock_mhz > 0);
  const SmRates plain = sm_rates(hw, DType::fp16);
  const SmRates wg = sm_rates(hw, DType::fp16, true);
  const double k = hw.measured.wgmma_clock_mhz / hw.measured.pipeline.clock_mhz;
  CHECK(plain.clock_hz == doctest::Approx(hw.measured.pipeline.clock_mhz * 1e6));
  CHECK(wg.clock_hz == doctest::Approx(hw.measured.wgmma_clock_mhz * 1e6));
  // The GEMM's FLOP/s and the L2's bytes/s stay per second: fewer cycles an instruction, more bytes a cycle.
  CHECK(wg.wgmma_interval / wg.clock_hz == doctest::Approx(plain.wgmma_interval / plain.clock_hz));
  CHECK(wg.l2_bytes_per_cycle * wg.clock_hz == doctest::Approx(plain.l2_bytes_per_cycle * plain.clock_hz));
  CHECK(wg.wgmma_interval == doctest::Approx(plain.wgmma_interval * k));
  // What the SM does per cycle stays per cycle.
  CHECK(wg.fp32_interval == plain.fp32_interval);
  CHECK(wg.ex2_interval == plain.ex2_interval);
  CHECK(wg.smem_bytes_per_cycle == plain.smem_bytes_per_cycle);
  CHECK(wg.mma_interval == plain.mma_interval);
  CHECK(wg.lat.ex2_latency == plain.lat.ex2_latency);
  // Not measured: the one clock of every kernel.
  HardwareSpec none = hw;
  none.measured.wgmma_clock_mhz = 0;
  CHECK(sm_rates(none, DType::fp16, true).clock_hz == plain.clock_hz);
  CHECK(sm_rates(none, DType::fp16, true).wgmma_interval == plain.wgmma_interval);
}
