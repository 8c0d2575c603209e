// What a compiled kernel asks of an SM: its own threads, registers and shared memory (compiled_kernel.h),
// in the shape the occupancy calculator (sim/gpu/occupancy.h) takes, in place of the schedule's
// estimate and a family's register model.
#pragma once

#include "sim/gpu/occupancy.h"
#include "sim/schedule/compiled_kernel.h"
#include "sim/schedule/kernel.h"

#include <string>

namespace iosim {

[[nodiscard]] inline LaunchShape compiled_launch(const CompiledKernel& k) {
  LaunchShape l;
  l.threads = 32 * k.warps;
  l.registers_per_thread = k.registers;
  l.smem = Bytes(k.shared_bytes);
  l.stages = k.stages;
  return l;
}

/// Why one block of `k` cannot run on an SM of `sm` ("registers: …", "shared memory: …"), or "".
[[nodiscard]] inline std::string compiled_launch_refusal(const CompiledKernel& k, const SmSpec& sm) {
  if (!k.compiled()) return k.error;
  return occupancy(compiled_launch(k), sm).infeasible;
}

}  // namespace iosim
