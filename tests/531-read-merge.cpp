// The GPU model's merging of simultaneous L2 reads (sim/gpu/read_merge.h, GpuModelOptions::merge_reads):
// closed forms on flash2's forward pass, whose blocks of one head read the same K and V tiles in the
// same replay round, and its own Q tile each.
#include <doctest/doctest.h>

#include "sim/gpu/gpu_model.h"
#include "sim/gpu/read_merge.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

namespace {

Prediction run(const ScheduleContext& ctx, Pass pass, bool merge) {
  GpuModelOptions o;
  o.merge_reads = merge;
  return predict(*make_schedule("flash2", pass, ctx), ctx, o);
}

HardwareSpec with_partitions(std::uint32_t partitions) {
  HardwareSpec hw = a100();
  hw.l2.partitions = partitions;
  return hw;
}

std::uint64_t up(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

constexpr std::uint64_t kD = 64, kBr = 128, kBc = 64, kSector = 32;

/// Sectors of Q one head's blocks read, and of K and V one block reads (fp16, d = 64: whole lines).
std::uint64_t q_sectors(std::uint64_t n) { return n * kD * 2 / kSector; }
std::uint64_t kv_sectors_per_block(std::uint64_t n) { return 2 * n * kD * 2 / kSector; }

}  // namespace

TEST_CASE("B blocks reading the same K/V tiles in one round: one lookup per kMergeCap requests") {
  for (std::uint64_t blocks : {1u, 2u, 3u, 4u, 5u, 6u, 8u, 9u}) {
    CAPTURE(blocks);
    const std::uint64_t n = blocks * kBr, heads = 3;
    const ScheduleContext ctx = context(problem(n, kD, 1, heads), with_partitions(1), tiles(kBr, kBc));
    const Prediction off = run(ctx, Pass::fwd, false);
    const Prediction on = run(ctx, Pass::fwd, true);
    const std::uint64_t kv_asked = heads * blocks * kv_sectors_per_block(n);
    REQUIRE(off.l2_read_sectors() == heads * q_sectors(n) + kv_asked);
    // Q is each block's own: every request a lookup; K and V: ceil(B / 4) lookups of each line.
    CHECK(on.l2_read_sectors() == heads * q_sectors(n) + kv_asked / blocks * up(blocks, kMergeCap));
    CHECK(on.xbar_read_sectors() == off.l2_read_sectors());
    CHECK(off.xbar_read_sectors() == off.l2_read_sectors());
    // The merged requests change no L2 state: DRAM reads are Q, K and V once either way.
    CHECK(on.dram_read() == off.dram_read());
    CHECK(on.dram_read().value == 3 * heads * n * kD * 2);
    CHECK(on.l2_write_sectors() == off.l2_write_sectors());
    CHECK(on.merged_reads);
    CHECK_FALSE(off.merged_reads);
  }
}

TEST_CASE("two partitions: only requests to the same partition merge") {
  // Slot i runs on SM i, whose requests go to partition i mod 2: B blocks split ceil(B/2), floor(B/2).
  for (std::uint64_t blocks : {2u, 5u, 8u, 12u}) {
    CAPTURE(blocks);
    const std::uint64_t n = blocks * kBr;
    const ScheduleContext ctx = context(problem(n, kD), with_partitions(2), tiles(kBr, kBc));
    const Prediction off = run(ctx, Pass::fwd, false);
    const Prediction on = run(ctx, Pass::fwd, true);
    const std::uint64_t lookups_per_line = up(up(blocks, 2), kMergeCap) + up(blocks / 2, kMergeCap);
    CHECK(on.l2_read_sectors() == q_sectors(n) + kv_sectors_per_block(n) * lookups_per_line);
    CHECK(on.xbar_read_sectors() == off.l2_read_sectors());
  }
}

TEST_CASE("blocks reading their own tiles merge nothing") {
  // One block a head (n = B_r): no two blocks read the same line.
  const ScheduleContext ctx = context(problem(kBr, kD, 2, 8), with_partitions(1), tiles(kBr, kBc));
  const Prediction off = run(ctx, Pass::fwd, false);
  const Prediction on = run(ctx, Pass::fwd, true);
  CHECK(on.l2_read_sectors() == off.l2_read_sectors());
  CHECK(on.kernels.front().l2_merged_read_sectors == 0);
}

TEST_CASE("stores and reductions are not merged; flag off counts every request") {
  // flash2's backward: blocks of one head read the same Q, dO tiles and reduce into the same dQ lines.
  const ScheduleContext ctx = context(problem(8 * kBr, kD, 1, 2), with_partitions(1), tiles(kBr, kBc));
  const Prediction off = run(ctx, Pass::bwd, false);
  const Prediction on = run(ctx, Pass::bwd, true);
  CHECK(on.l2_write_sectors() == off.l2_write_sectors());
  CHECK(on.l2_red_sectors() == off.l2_red_sectors());
  CHECK(on.l2_read_sectors() < off.l2_read_sectors());
  CHECK(on.xbar_read_sectors() == off.l2_read_sectors());
  for (const KernelPrediction& k : off.kernels) CHECK(k.l2_merged_read_sectors == 0);
}

TEST_CASE("merging needs the exact replay") {
  const ScheduleContext ctx = context(problem(1024, kD), a100(), tiles(kBr, kBc));
  GpuModelOptions o;
  o.merge_reads = true;
  o.l2 = L2Mode::fast;
  CHECK_THROWS_AS((void)predict(*make_schedule("flash2", Pass::fwd, ctx), ctx, o), InputError);
}
