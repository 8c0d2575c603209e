// How long a kernel takes, from the time each resource needs at its rate:
//
//   DRAM      (dram__bytes_read + dram__bytes_write) ÷ HBM bandwidth
//   L2        (SM-to-L2 sectors × 32 B) ÷ L2 bandwidth (bytes per clock × SM clock)
//   SRAM      the busiest SM's shared-memory traffic ÷ (bytes per clock × clock)
//   tensor    the busiest SM's matrix-product FLOPs ÷ (tensor peak of the type ÷ SMs)
//   exp       the busiest SM's exp and log evaluations ÷ (special-function results per clock × clock)
//   vector    the busiest SM's other FLOPs ÷ (fp32 peak ÷ SMs)
// Each rate is the config's `measured:` ceiling where it has one (`iosim calibrate`), else the
// datasheet's peak. An SM's time is the larger of its SRAM time and tensor + exp + vector: the warps of
// a FlashAttention-2-style kernel issue their products and their softmax in turn, not at once. The
// busiest SM's share carries wave quantization: the blocks of a last, partial wave still take a
// whole block's time. Memory and SM work overlap: the kernel takes the larger of the memory time and
// the SM time, plus the config's launch overhead (on the H200 no measured kernel ran faster than
// that, docs/validation.md). The resource whose time is the kernel's is named.
#pragma once

#include <string>
#include <vector>

#include "sim/core/hardware.h"
#include "sim/gpu/gpu_model.h"

namespace iosim {

struct KernelTime {
  std::string name;
  double dram_s = 0, l2_s = 0, sram_s = 0, tensor_s = 0, special_s = 0, vector_s = 0;
  double launch_s = 0;
  double total_s = 0;
  std::string binding;  ///< "DRAM", "L2", "SRAM", "tensor", "exp", "vector" or "launch"
};

struct TimePrediction {
  std::vector<KernelTime> kernels;
  double total_s = 0;
  std::string binding;  ///< of the longest kernel
};

/// Peak tensor FLOP/s of `hw` for element type `t` (fp32 runs on the non-tensor peak); 0 if none.
[[nodiscard]] double tensor_peak(const HardwareSpec& hw, DType t);

/// The tensor rate the time model uses: the measured ceiling for the type where the config has one,
/// else tensor_peak().
[[nodiscard]] double tensor_rate(const HardwareSpec& hw, DType t);

[[nodiscard]] KernelTime kernel_time(const KernelPrediction& k, std::uint32_t sector_bytes, const HardwareSpec& hw,
                                     DType t);

/// Every kernel of `p`, and their sum. The dirty lines left at the end are written during the last
/// kernel's time budget (a timing loop pays them in the next iteration).
[[nodiscard]] TimePrediction predict_time(const Prediction& p, const HardwareSpec& hw, DType t);

}  // namespace iosim
