#include "sim/gpu/occupancy.h"

#include <algorithm>

namespace iosim {

Occupancy occupancy(const LaunchShape& launch, const SmSpec& sm) {
  Occupancy o;
  const std::uint32_t warps = (launch.threads + kWarpSize - 1) / kWarpSize;
  if (launch.threads == 0 || launch.threads > sm.max_threads_per_block) {
    o.infeasible = "threads: " + std::to_string(launch.threads) + " per block, the limit is " +
                   std::to_string(sm.max_threads_per_block);
    return o;
  }
  if (launch.registers_per_thread == 0 || launch.registers_per_thread > sm.max_registers_per_thread) {
    o.infeasible = "registers: about " + std::to_string(launch.registers_per_thread) +
                   " per thread, the limit is " + std::to_string(sm.max_registers_per_thread);
    return o;
  }
  if (launch.smem > sm.sram_per_block) {
    o.infeasible = "shared memory: " + std::to_string(launch.smem.value) + " B per block, the limit is " +
                   std::to_string(sm.sram_per_block.value) + " B";
    return o;
  }
  const std::uint64_t regs_per_warp =
      ceil_div(std::uint64_t{launch.registers_per_thread} * kWarpSize, kRegisterAllocationUnit) * kRegisterAllocationUnit;
  const std::uint64_t by_threads = sm.max_threads_per_sm / (std::uint64_t{warps} * kWarpSize);
  const std::uint64_t by_registers = sm.registers_per_sm / (regs_per_warp * warps);
  const std::uint64_t by_smem = launch.smem.value == 0 ? sm.max_blocks_per_sm : sm.sram_per_sm.value / launch.smem.value;
  const std::uint64_t by_cap = sm.max_blocks_per_sm;
  const std::uint64_t n = std::min({by_threads, by_registers, by_smem, by_cap});
  if (n == 0) {
    o.infeasible = by_registers == 0 ? "registers: a block needs more than an SM has" : "threads: a block needs more than an SM has";
    return o;
  }
  o.blocks_per_sm = static_cast<std::uint32_t>(n);
  o.limited_by = n == by_smem && launch.smem.value != 0 ? "shared memory"
                 : n == by_registers                    ? "registers"
                 : n == by_threads                      ? "threads"
                                                        : "blocks per SM";
  o.concurrent = n * sm.count;
  return o;
}

}  // namespace iosim
