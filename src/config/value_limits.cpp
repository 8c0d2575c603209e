#include "src/config/value_limits.h"

#include <fmt/format.h>

#include <iterator>

#include "src/config/hardware_config.h"

namespace iosim::config {

namespace {

constexpr double kKiB = 1024, kGiB = kKiB * kKiB * kKiB;

// Plausible: a factor of about 1000 around today's GPUs each way, where the model allows it.
// l2.ways (at most 256) and l2.partitions (1 or 2) keep their own checks (hardware_config.cpp).
constexpr ValueLimit kLimits[] = {
    {"sm.count", 1, kMaxSms, "SMs are modelled"},
    {"sm.sram_per_sm_bytes", 256, kGiB, "bytes"},
    {"sm.sram_per_block_bytes", 256, kGiB, "bytes"},
    {"sm.registers_per_sm", 256, 1 << 24, "registers"},
    {"sm.max_registers_per_thread", 16, 1 << 16, "registers"},
    {"sm.max_threads_per_sm", 32, 1 << 20, "threads"},
    {"sm.max_threads_per_block", 32, 1 << 20, "threads"},
    {"sm.max_blocks_per_sm", 1, kMaxBlocksPerSm, "blocks per SM are modelled"},
    {"sm.sram_bytes_per_clock", 1, 1 << 16, "bytes per clock"},
    {"sm.sfu_ops_per_clock", 1, 1 << 16, "operations per clock"},
    {"l2.size_bytes", 1, kMaxL2Bytes, "bytes (1 GiB) of L2 are modelled"},
    {"l2.line_bytes", 1, 64 * kKiB, "bytes"},
    {"l2.sector_bytes", 1, 64 * kKiB, "bytes"},
    {"l2.bytes_per_clock", 1, 1 << 24, "bytes per clock"},
    {"hbm.bandwidth_gb_per_s", 1, 1e6, "GB/s"},
    {"clocks.sm_mhz", 1, 1e5, "MHz"},
    {"peak.tensor_fp16_tflops", 1e-3, 1e6, "TFLOP/s"},
    {"peak.tensor_bf16_tflops", 1e-3, 1e6, "TFLOP/s"},
    {"peak.tensor_fp8_tflops", 1e-3, 1e6, "TFLOP/s", true},
    {"peak.fp32_tflops", 1e-3, 1e6, "TFLOP/s"},
    {"launch_overhead_us", 1e-3, 1e6, "µs"},
    {"pipeline.clock_mhz", 1, 1e5, "MHz"},
    {"pipeline.mma_latency", 0.1, 1e6, "cycles"},
    {"pipeline.ldmatrix_latency", 0.1, 1e6, "cycles"},
    {"pipeline.lds_latency", 0.1, 1e6, "cycles"},
    {"pipeline.cp_async_latency", 0.1, 1e6, "cycles"},
    {"pipeline.ex2_latency", 0.1, 1e6, "cycles"},
    {"pipeline.fma_latency", 0.1, 1e6, "cycles"},
    {"pipeline.shfl_latency", 0.1, 1e6, "cycles"},
    {"pipeline.shfl_interval", 0.1, 1e6, "cycles"},
    {"pipeline.bar_latency", 0.1, 1e6, "cycles"},
    {"pipeline.l2_hit_latency", 0.1, 1e6, "cycles"},
    {"pipeline.dram_latency", 0.1, 1e6, "cycles"},
    {"pipeline.launch_us", 1e-3, 1e6, "µs"},
    {"pipeline.wgmma_latency", 0.1, 1e6, "cycles", true},
    {"pipeline.wgmma_interval", 0.1, 1e6, "cycles", true},
    {"pipeline.tma_copy_cycles", 0.1, 1e6, "cycles", true},
    {"measured.hbm_gb_per_s", 1, 1e6, "GB/s"},
    {"measured.l2_gb_per_s", 1, 1e7, "GB/s"},
    {"measured.l2_red_gb_per_s", 1, 1e7, "GB/s"},
    {"measured.sram_gb_per_s", 1, 1e8, "GB/s"},
    {"measured.tensor_fp16_tflops", 1e-3, 1e6, "TFLOP/s"},
    {"measured.tensor_bf16_tflops", 1e-3, 1e6, "TFLOP/s"},
    {"measured.gemm_fp16_tflops", 1e-3, 1e6, "TFLOP/s"},
    {"measured.wgmma_clock_mhz", 1, 1e5, "MHz"},
    {"measured.exp2_g_per_s", 1e-3, 1e8, "G/s"},
};

}  // namespace

const ValueLimit* value_limit(std::string_view key_path) {
  for (const ValueLimit& l : kLimits) {
    if (l.key == key_path) return &l;
  }
  constexpr std::string_view kMeasured = "measured.";
  if (key_path.substr(0, kMeasured.size()) == kMeasured) {
    const std::string pipeline = "pipeline." + std::string(key_path.substr(kMeasured.size()));
    for (const ValueLimit& l : kLimits) {
      if (l.key == pipeline) return &l;
    }
  }
  return nullptr;
}

std::string value_limit_problem(const ValueLimit& limit, double v) {
  if (v == 0 && limit.zero_allowed) return "";
  if (v > limit.max) return fmt::format("at most {} {}, got {}", limit.max, limit.unit, v);
  if (v < limit.min) {
    return fmt::format("at least {} {}{}, got {}", limit.min, limit.unit, limit.zero_allowed ? " (or 0)" : "", v);
  }
  return "";
}

const ValueLimit* value_limits_begin() { return std::begin(kLimits); }
const ValueLimit* value_limits_end() { return std::end(kLimits); }

}  // namespace iosim::config
