// How many thread blocks of a launch an SM holds at once, and what limits it — the CUDA occupancy
// calculation: threads, registers (allocated per warp in units of 256), shared memory, and the
// hardware's cap on resident blocks.
#pragma once

#include <cstdint>
#include <string>

#include "sim/core/hardware.h"
#include "sim/schedule/kernel.h"

namespace iosim {

struct Occupancy {
  std::uint32_t blocks_per_sm = 0;
  std::string limited_by;    ///< "threads", "registers", "shared memory" or "blocks per SM"
  std::uint64_t concurrent = 0;  ///< blocks the whole GPU runs at once: SMs × blocks_per_sm
  std::string infeasible;    ///< why not even one block fits an SM; empty when one does
};

inline constexpr std::uint32_t kRegisterAllocationUnit = 256;  ///< registers per warp come in these units
inline constexpr std::uint32_t kWarpSize = 32;

[[nodiscard]] Occupancy occupancy(const LaunchShape& launch, const SmSpec& sm);

}  // namespace iosim
