// How long a kernel takes.
//
// Kernels whose family iosim describes (kernel_family.h: its own FlashAttention kernels, PyTorch's
// FlashAttention-2) go through the SM model: each block's steps (step_profile.h) priced on an SM shared
// with the other resident blocks (sm_model.h: one warp's dependent chain and the resident warps
// queueing for the pipes, or for a staggered family the larger of the chain and their work on the
// busiest pipe), the blocks scheduled over the SMs in launch order
// (block_schedule.h: waves, the last wave's tail, unequal blocks). The kernel takes
//
//   launch + max(SM time, DRAM bytes ÷ DRAM bandwidth, L2 bytes ÷ L2 bandwidth)
//
// and the SM time splits into issue-bound (the pipes were full), latency-bound (a chain or a load's
// round trip was on the critical path), and tail (SMs idle while the last blocks finish); `memory` is
// what the bandwidth terms add beyond it. Library kernels (cuBLAS, in naive) take the roofline: each
// resource alone at its rate, the largest binding.
//
// Every rate is the config's `measured:` figure where it has one (`iosim calibrate`), else the
// datasheet's or the `pipeline:` section's default, each with its source in the config.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sim/schedule/kernel_registers.h"
#include "sim/schedule/kernel_step_mix.h"
#include "sim/core/hardware.h"
#include "sim/gpu/gpu_model.h"
#include "sim/schedule/schedule.h"
#include "sim/timing/instruction_mix.h"
#include "sim/timing/smem_wavefronts.h"

namespace iosim {

struct KernelTime {
  std::string name;
  std::string family;  ///< the kernel family that priced it (kernel_family.h)
  // Each resource alone at its rate (the roofline), for reference and for library kernels.
  double dram_s = 0, l2_s = 0, sram_s = 0, tensor_s = 0, special_s = 0, vector_s = 0;
  // The SM model's breakdown: total = launch + issue + latency + tail + memory.
  double issue_s = 0;    ///< steps whose resident warps kept a pipe busy
  double latency_s = 0;  ///< steps bound by a dependent chain or a load's round trip
  double tail_s = 0;     ///< the last blocks running while other SMs are idle
  double memory_s = 0;   ///< what DRAM or L2 bandwidth adds beyond the SMs' time
  double launch_s = 0;
  double total_s = 0;
  std::uint32_t blocks_per_sm = 0;  ///< resident blocks the SM model ran with
  std::uint32_t registers = 0;      ///< per thread, from registers_from (0: the schedule's estimate)
  RegisterSource registers_from = RegisterSource::none;  ///< the compiled kernel's (ptxas) or the family's model
  /// What priced the steps' instructions the schedule does not name: the compiled kernel's SASS or the
  /// family's fitted overhead (none outside the SM model's steps, or for a Triton kernel's own record).
  OverheadSource overhead_from = OverheadSource::none;
  std::string limited_by;           ///< what limits blocks_per_sm (sim/gpu/occupancy.h)
  /// "issue", "latency", "tail", "DRAM", "L2" or "launch"; for library kernels the roofline's
  /// resource ("tensor", "exp", "vector", "SRAM", "DRAM", "L2", "launch").
  std::string binding;
  std::string pipe;  ///< the busiest pipe of issue-bound steps ("tensor", "exp", "fp32", "shuffle", "issue")
  InstructionMix instructions;  ///< the SM model's warp instructions over the whole grid (0 for library kernels)
  /// Shared-memory wavefronts over the whole grid, counted from the instructions where the family's
  /// layout is known (smem_wavefronts_counted); 0 and false for the others, whose wavefronts a
  /// report estimates from the bytes.
  SmemWavefronts smem_wavefronts;
  bool smem_wavefronts_counted = false;
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

/// The roofline of one kernel: each resource alone at its rate, from the GPU model's counts.
[[nodiscard]] KernelTime roofline_time(const KernelPrediction& k, double dram_bytes, std::uint32_t sector_bytes,
                                       const HardwareSpec& hw, DType t);

/// Every kernel of `p` at the roofline alone: no latency, no tail. At the datasheet's peaks a lower
/// bound on the time.
[[nodiscard]] TimePrediction predict_roofline(const Prediction& p, const HardwareSpec& hw, DType t);

/// Every kernel of schedule `s` (as `predict(s, ctx)` ran it into `p`) on `hw`, and their sum. The
/// dirty lines left at the end are written during the last kernel's time (a timing loop pays them in
/// the next iteration).
[[nodiscard]] TimePrediction predict_time(const Schedule& s, const ScheduleContext& ctx, const Prediction& p,
                                          const HardwareSpec& hw);
/// predict_time() of a cold and a warm prediction of `s`, each kernel's blocks profiled once for
/// both (the profiles depend on the schedule only; on a causal grid, every block is walked).
[[nodiscard]] std::pair<TimePrediction, TimePrediction> predict_times(const Schedule& s, const ScheduleContext& ctx,
                                                                      const Prediction& cold, const Prediction& warm,
                                                                      const HardwareSpec& hw);

}  // namespace iosim
