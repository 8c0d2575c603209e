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

KernelTime time_with(const KernelPrediction& k, double dram_bytes, std::uint32_t sector_bytes, const HardwareSpec& hw,
                     DType t) {
  KernelTime out;
  out.name = k.name;
  const double clock = hw.clock.sm_mhz * 1e6;
  const double sms = hw.sm.count;
  out.dram_s = dram_bytes / (hw.hbm.bandwidth_gb_per_s * 1e9);
  const double l2_bytes =
      static_cast<double>(k.l2_read_sectors + k.l2_write_sectors + k.l2_red_sectors) * sector_bytes;
  out.l2_s = l2_bytes / (hw.l2.bytes_per_clock * clock);
  out.sram_s = k.busiest.sram_bytes / (hw.sm.sram_bytes_per_clock * clock);
  const double tensor = tensor_peak(hw, t);
  out.tensor_s = tensor > 0 ? k.busiest.matmul_flops / (tensor / sms) : 0;
  out.vector_s = k.busiest.vector_flops / (hw.peak.fp32_tflops * 1e12 / sms);
  out.launch_s = hw.launch_overhead_us * 1e-6;
  out.overlapped = k.launch.stages >= 2 || k.occupancy.blocks_per_sm >= 2;
  const double memory = std::max(out.dram_s, out.l2_s);
  const double sm = std::max({out.sram_s, out.tensor_s, out.vector_s});
  out.total_s = (out.overlapped ? std::max(memory, sm) : memory + sm) + out.launch_s;
  const std::array<std::pair<double, const char*>, 6> terms{{{out.dram_s, "DRAM"},
                                                              {out.l2_s, "L2"},
                                                              {out.sram_s, "SRAM"},
                                                              {out.tensor_s, "tensor"},
                                                              {out.vector_s, "vector"},
                                                              {out.launch_s, "launch"}}};
  out.binding = std::max_element(terms.begin(), terms.end())->second;
  return out;
}

}  // namespace

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
