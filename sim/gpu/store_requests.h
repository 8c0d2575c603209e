// Stores written in pieces smaller than a sector: the L2 counts a sector once per store request that
// writes it, so a kernel whose threads store a tile a few bytes at a time (iosim's flash3 backward
// stores dK and dV as 4-byte pairs from the wgmma accumulators) shows more L2 write sectors than the
// tile has. HBM sees each sector once: the later requests find the line the first one made dirty. So
// the replay writes each tile once, and the further requests (Transfer::requests_per_sector − 1 per
// sector) are added to the L2's write count after it, as the spills are (spill_stores.h).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/gpu/gpu_model.h"
#include "sim/schedule/kernel.h"
#include "sim/schedule/schedule.h"

namespace iosim {

/// The L2 write sectors of `k`'s stores beyond one request a sector: Σ over its stores of
/// (requests_per_sector − 1) × the sectors the tile covers, over every block and grid head.
[[nodiscard]] std::uint64_t repeated_store_sectors(const Kernel& k, const ScheduleContext& ctx);

/// Adds each kernel's repeated store sectors to `p`'s L2 writes (p.kernels in the order of `kernels`).
void add_store_requests(Prediction& p, const std::vector<const Kernel*>& kernels, const ScheduleContext& ctx);

}  // namespace iosim
