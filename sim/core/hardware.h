// A GPU as the model sees it: plain figures, filled from a YAML file by the program (src/config) or
// written directly in code by tests. Sizes in bytes, rates in their own units.
#pragma once

#include <cstdint>
#include <string>

#include "sim/core/dtype.h"
#include "sim/core/units.h"

namespace iosim {

struct SmSpec {
  std::uint32_t count = 0;                  ///< streaming multiprocessors
  Bytes sram_per_sm;                        ///< shared memory per SM at the largest carve-out
  Bytes sram_per_block;                     ///< the most shared memory one thread block may use
  std::uint32_t registers_per_sm = 0;       ///< 32-bit registers
  std::uint32_t max_registers_per_thread = 0;
  std::uint32_t max_threads_per_sm = 0;
  std::uint32_t max_threads_per_block = 0;
  std::uint32_t max_blocks_per_sm = 0;
  std::uint32_t sram_bytes_per_clock = 0;   ///< shared-memory bandwidth of one SM
  std::uint32_t sfu_ops_per_clock = 0;      ///< special-function results (exp2, log2) per clock of one SM
};

struct L2Spec {
  Bytes capacity;
  std::uint32_t line_bytes = 0;
  std::uint32_t sector_bytes = 0;
  std::uint32_t ways = 0;                   ///< set associativity
  std::uint32_t bytes_per_clock = 0;        ///< bandwidth SMs ↔ L2, whole chip, per SM clock
  std::uint32_t partitions = 1;             ///< 1, or 2 (sim/memory/partitioned_l2.h)
};

struct HbmSpec {
  Bytes capacity;
  double bandwidth_gb_per_s = 0;            ///< 10^9 bytes per second
};

struct ClockSpec {
  double sm_mhz = 0;                        ///< SM boost clock
  double memory_mhz = 0;
};

struct PeakSpec {
  double tensor_fp16_tflops = 0;            ///< dense, fp32 accumulate
  double tensor_bf16_tflops = 0;
  double tensor_fp8_tflops = 0;             ///< 0 where the chip has no fp8 tensor cores
  double fp32_tflops = 0;                   ///< non-tensor fp32
};

/// Ceilings measured on a real GPU of this kind (`iosim calibrate`); 0 where not measured. The time
/// model uses them in place of the datasheet's peaks when present.
struct MeasuredSpec {
  double hbm_gb_per_s = 0;        ///< a large device-to-device copy: (bytes read + written) / time
  double l2_gb_per_s = 0;         ///< reads of a buffer that fits the L2, whole chip
  double sram_gb_per_s = 0;       ///< shared-memory loads and stores, whole chip
  double tensor_fp16_tflops = 0;  ///< mma.sync m16n8k16, fp32 accumulate
  double tensor_bf16_tflops = 0;
  double exp2_g_per_s = 0;        ///< ex2.approx.f32 results per second, whole chip
};

struct HardwareSpec {
  std::string name;
  std::string arch;                         ///< e.g. sm_80
  SmSpec sm;
  L2Spec l2;
  HbmSpec hbm;
  ClockSpec clock;
  PeakSpec peak;
  double launch_overhead_us = 0;            ///< fixed cost of one kernel launch
  MeasuredSpec measured;
};

/// M of the FlashAttention paper: the SRAM one thread block may use, in elements of `t`.
[[nodiscard]] inline std::uint64_t sram_elements(const HardwareSpec& hw, DType t) {
  return hw.sm.sram_per_block.value / size_bytes(t);
}

}  // namespace iosim
