// The occupancy calculation, by hand.
#include <doctest/doctest.h>

#include "sim/gpu/occupancy.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

TEST_CASE("blocks per SM: the tightest of threads, registers, shared memory and the cap") {
  const SmSpec sm = a100().sm;  // 2048 threads, 64K registers, 164 KiB, 32 blocks
  // 128 threads × 232 registers: 232·32 = 7424 → 7424 per warp (already a multiple of 256), 4 warps =
  // 29,696 per block; 65,536 / 29,696 = 2 blocks.
  Occupancy o = occupancy(LaunchShape{128, 232, Bytes(48 * 1024), 1}, sm);
  CHECK(o.blocks_per_sm == 2);
  CHECK(o.limited_by == "registers");
  CHECK(o.concurrent == 216);
  // Shared memory: 100 KiB per block leaves room for one.
  o = occupancy(LaunchShape{128, 32, Bytes(100 * 1024), 1}, sm);
  CHECK(o.blocks_per_sm == 1);
  CHECK(o.limited_by == "shared memory");
  // Threads: 1024-thread blocks of 16 registers each, 2 per SM (registers would allow 4).
  o = occupancy(LaunchShape{1024, 16, Bytes(0), 1}, sm);
  CHECK(o.blocks_per_sm == 2);
  CHECK(o.limited_by == "threads");
  // The cap: tiny blocks.
  o = occupancy(LaunchShape{32, 16, Bytes(0), 1}, sm);
  CHECK(o.blocks_per_sm == 32);
  CHECK(o.limited_by == "blocks per SM");
  // Register allocation in units of 256 per warp: 33 registers × 32 = 1056 → 1280.
  o = occupancy(LaunchShape{1024, 33, Bytes(0), 1}, sm);
  CHECK(o.blocks_per_sm == 1);  // 32 warps × 1280 = 40,960 ≤ 65,536 < 81,920
}

TEST_CASE("a block that cannot fit an SM says why") {
  const SmSpec sm = a100().sm;
  CHECK(occupancy(LaunchShape{128, 300, Bytes(0), 1}, sm).infeasible.find("registers") == 0);
  CHECK(occupancy(LaunchShape{2048, 32, Bytes(0), 1}, sm).infeasible.find("threads") == 0);
  CHECK(occupancy(LaunchShape{128, 32, Bytes(200 * 1024), 1}, sm).infeasible.find("shared memory") == 0);
  CHECK(occupancy(LaunchShape{128, 32, Bytes(1024), 1}, sm).infeasible.empty());
}
