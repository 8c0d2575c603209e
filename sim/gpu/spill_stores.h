// Register spills as L2 writes: a compiled kernel that spills stores to local memory, which the L2
// counts as writes beside the global stores the schedule emits. The figures are its family's
// (KernelFamily::spills, measured); the blocks and steps are the kernel's own. Spilled lines are
// rewritten in the L2 and, as measured, not written back while the kernel runs: no DRAM traffic, so they
// are added to the L2's write count and kept out of the cache replay.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/gpu/gpu_model.h"
#include "sim/schedule/kernel.h"
#include "sim/schedule/schedule.h"

namespace iosim {

/// The compiled head dimension a FlashAttention-2 launcher dispatches `d` to (multiples of 32 to 128,
/// of 64 above).
[[nodiscard]] std::uint64_t fa2_compiled_head_dim(std::uint64_t d);

/// The L2 write sectors of `k`'s spills as the kernels of ctx.kernel.source run it (0 where its family
/// has no spills measured for the problem's head dimension, mask and type).
[[nodiscard]] std::uint64_t spill_write_sectors(const Kernel& k, const ScheduleContext& ctx);

/// Adds each kernel's spill sectors to `p`'s L2 writes (p.kernels in the order of `kernels`).
void add_spill_stores(Prediction& p, const std::vector<const Kernel*>& kernels, const ScheduleContext& ctx);

}  // namespace iosim
