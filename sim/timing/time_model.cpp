#include "sim/timing/time_model.h"

#include <algorithm>
#include <array>
#include <utility>

namespace iosim {

double tensor_peak(const HardwareSpec& hw, DType t) {
  switch (t) {
    case DType::fp16: return hw.peak.tensor_fp16_tflops * 1e12;
    case DType::bf16: return hw.peak.tensor_bf16_tflops * 1e12;
    case DType::fp8: return hw.peak.tensor_fp8_tflops * 1e12;
    case DType::fp32: return hw.peak.fp32_tflops * 1e12;
  }
  return 0;
}

namespace {

/// A rate from the `measured:` section when the config has one, else the datasheet's.
double either(double measured, double datasheet) { return measured > 0 ? measured : datasheet; }

KernelTime time_with(const KernelPrediction& k, double dram_bytes, std::uint32_t sector_bytes, const HardwareSpec& hw,
                     DType t) {
  KernelTime out;
  out.name = k.name;
  const double clock = hw.clock.sm_mhz * 1e6;
  const double sms = hw.sm.count;
  const MeasuredSpec& m = hw.measured;
  out.dram_s = dram_bytes / (either(m.hbm_gb_per_s, hw.hbm.bandwidth_gb_per_s) * 1e9);
  const double l2_bytes =
      static_cast<double>(k.l2_read_sectors + k.l2_write_sectors + k.l2_red_sectors) * sector_bytes;
  out.l2_s = l2_bytes / (either(m.l2_gb_per_s * 1e9, hw.l2.bytes_per_clock * clock));
  out.sram_s = k.busiest.sram_bytes / (either(m.sram_gb_per_s * 1e9, hw.sm.sram_bytes_per_clock * clock * sms) / sms);
  const double tensor = tensor_rate(hw, t);
  out.tensor_s = tensor > 0 ? k.busiest.matmul_flops / (tensor / sms) : 0;
  out.special_s = k.busiest.special_ops / (either(m.exp2_g_per_s * 1e9, hw.sm.sfu_ops_per_clock * clock * sms) / sms);
  out.vector_s = k.busiest.vector_flops / (hw.peak.fp32_tflops * 1e12 / sms);
  out.launch_s = hw.launch_overhead_us * 1e-6;
  const double memory = std::max(out.dram_s, out.l2_s);
  // The warps of a block issue their matrix products, exponentials and other arithmetic in turn
  // (FlashAttention-2's structure; FlashAttention-3's ping-pong scheduling is what overlaps them), so
  // the three add; shared-memory traffic overlaps them.
  const double math = out.tensor_s + out.special_s + out.vector_s;
  const double sm = std::max(out.sram_s, math);
  out.total_s = std::max(memory, sm) + out.launch_s;
  // The binding resource: the one whose time the total is; when it is the SM's arithmetic, the
  // largest part of it.
  const std::array<std::pair<double, const char*>, 3> math_parts{
      {{out.tensor_s, "tensor"}, {out.special_s, "exp"}, {out.vector_s, "vector"}}};
  const std::array<std::pair<double, const char*>, 5> terms{
      {{out.dram_s, "DRAM"},
       {out.l2_s, "L2"},
       {out.sram_s, "SRAM"},
       {math, std::max_element(math_parts.begin(), math_parts.end())->second},
       {out.launch_s, "launch"}}};
  out.binding = std::max_element(terms.begin(), terms.end())->second;
  return out;
}

}  // namespace

double tensor_rate(const HardwareSpec& hw, DType t) {
  switch (t) {
    case DType::fp16: return either(hw.measured.tensor_fp16_tflops * 1e12, tensor_peak(hw, t));
    case DType::bf16: return either(hw.measured.tensor_bf16_tflops * 1e12, tensor_peak(hw, t));
    default: return tensor_peak(hw, t);
  }
}

KernelTime kernel_time(const KernelPrediction& k, std::uint32_t sector_bytes, const HardwareSpec& hw, DType t) {
  return time_with(k, static_cast<double>((k.dram_read + k.dram_write).value), sector_bytes, hw, t);
}

TimePrediction predict_time(const Prediction& p, const HardwareSpec& hw, DType t) {
  TimePrediction out;
  double longest = -1;
  for (std::size_t i = 0; i < p.kernels.size(); ++i) {
    const KernelPrediction& k = p.kernels[i];
    double dram = static_cast<double>((k.dram_read + k.dram_write).value);
    if (i + 1 == p.kernels.size()) dram += static_cast<double>(p.dirty_at_end.value);
    KernelTime kt = time_with(k, dram, p.sector_bytes, hw, t);
    out.total_s += kt.total_s;
    if (kt.total_s > longest) {
      longest = kt.total_s;
      out.binding = kt.binding;
    }
    out.kernels.push_back(std::move(kt));
  }
  return out;
}

}  // namespace iosim
