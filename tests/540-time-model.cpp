// The time model names the resource that binds, on cases chosen to be memory- and compute-bound.
#include <doctest/doctest.h>

#include "sim/timing/time_model.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

namespace {
TimePrediction timed(const std::string& name, const ScheduleContext& ctx) {
  const auto s = make_schedule(name, Pass::fwd, ctx);
  return predict_time(predict(*s, ctx), ctx.hardware, ctx.problem.dtype);
}
}  // namespace

TEST_CASE("standard attention at n = 4096 is DRAM-bound: S and P cross HBM") {
  const TimePrediction t = timed("naive", context(problem(4096, 64, 1, 8)));
  CHECK(t.binding == "DRAM");
  // Its softmax kernel reads S and writes P: 2 × 8 × 4096² × 2 B = 537 MB at 1,555 GB/s ≈ 0.345 ms.
  REQUIRE(t.kernels.size() == 3);
  CHECK(t.kernels[1].binding == "DRAM");
  CHECK(t.kernels[1].dram_s == doctest::Approx(2.0 * 8 * 4096 * 4096 * 2 / 1555e9).epsilon(0.01));
}

TEST_CASE("flash2 at large d with many heads is bound on the SMs, not by DRAM") {
  const TimePrediction t = timed("flash2", context(problem(8192, 128, 4, 16)));
  CHECK((t.binding == "tensor" || t.binding == "SRAM"));
  CHECK(t.kernels[0].dram_s < t.kernels[0].total_s / 10);
}

TEST_CASE("a tiny problem is bound by the launch") {
  const TimePrediction t = timed("flash2", context(problem(16, 16)));
  CHECK(t.binding == "launch");
  CHECK(t.total_s == doctest::Approx(4e-6).epsilon(0.2));
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
  // Its busiest SM does one head's whole work.
  CHECK(p.kernels[1].busiest.matmul_flops == doctest::Approx(4.0 * 4096 * 4096 * 64));
}

TEST_CASE("a small head dim is bound by the exponentials: one exp per score against 4d products") {
  // flash2 forward: 4·d FLOPs of products per score on the tensor cores (312 TFLOP/s on the A100),
  // one exp per score on the special-function units (16 per clock per SM: 108 × 16 × 1.41 GHz ≈ 2.4
  // T/s). At d = 16 the products take 64 / 312e12 s per score, the exp 1 / 2.4e12: the exp binds.
  const ScheduleContext ctx = context(problem(4096, 16, 1, 108));
  const auto s = make_schedule("flash2", Pass::fwd, ctx);
  const Prediction p = predict(*s, ctx);
  const KernelTime k = kernel_time(p.kernels[0], p.sector_bytes, ctx.hardware, DType::fp16);
  CHECK(k.binding == "exp");
  CHECK(k.special_s > k.tensor_s);
  const double sfu_rate = 16.0 * ctx.hardware.clock.sm_mhz * 1e6;  // per SM
  CHECK(k.special_s == doctest::Approx(p.kernels[0].busiest.special_ops / sfu_rate));
  // The SM's arithmetic is serialized: the kernel takes at least tensor + exp + vector.
  CHECK(k.total_s >= k.tensor_s + k.special_s + k.vector_s);
}

TEST_CASE("measured ceilings replace the datasheet's rates") {
  const ScheduleContext ctx = context(problem(2048, 128, 1, 16));
  const auto s = make_schedule("flash2", Pass::fwd, ctx);
  const Prediction p = predict(*s, ctx);
  HardwareSpec hw = ctx.hardware;
  const KernelTime peak = kernel_time(p.kernels[0], p.sector_bytes, hw, DType::fp16);
  hw.measured.tensor_fp16_tflops = hw.peak.tensor_fp16_tflops / 2;
  hw.measured.exp2_g_per_s = hw.sm.sfu_ops_per_clock * hw.clock.sm_mhz * 1e6 * hw.sm.count / 1e9 / 4;
  hw.measured.hbm_gb_per_s = hw.hbm.bandwidth_gb_per_s / 2;
  const KernelTime meas = kernel_time(p.kernels[0], p.sector_bytes, hw, DType::fp16);
  CHECK(meas.tensor_s == doctest::Approx(2 * peak.tensor_s));
  CHECK(meas.special_s == doctest::Approx(4 * peak.special_s));
  CHECK(meas.dram_s == doctest::Approx(2 * peak.dram_s));
  CHECK(meas.vector_s == doctest::Approx(peak.vector_s));  // no measured rate: the datasheet's
  CHECK(meas.total_s > peak.total_s);
  // bf16 was not measured: its rate stays the datasheet's.
  CHECK(tensor_rate(hw, DType::bf16) == doctest::Approx(tensor_peak(hw, DType::bf16)));
  CHECK(tensor_rate(hw, DType::fp16) == doctest::Approx(tensor_peak(hw, DType::fp16) / 2));
}
