// The GPU model: invariants of what reaches the L2 and DRAM, cold and warm, and L2 size.
#include <doctest/doctest.h>

#include "sim/gpu/gpu_model.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

namespace {

Prediction run(const std::string& name, Pass pass, const ScheduleContext& ctx, bool warm = false) {
  GpuModelOptions o;
  o.warm = warm;
  return predict(*make_schedule(name, pass, ctx), ctx, o);
}

/// An A100 whose L2 has `ways` ways of the A100's sets (so more ways = strictly more lines per set).
HardwareSpec l2_ways(std::uint32_t ways) {
  HardwareSpec hw = a100();
  hw.l2.capacity = Bytes(std::uint64_t{20480} * 128 * ways / 64);  // 320 sets
  hw.l2.ways = ways;
  return hw;
}

}  // namespace

TEST_CASE("the SMs ask the L2 for exactly what the schedule's blocks move") {
  // flash2: every tile the blocks load or store, in sectors (d = 64 fp16 rows are whole lines).
  const ScheduleContext ctx = context(problem(1024, 64, 1, 4), a100(), tiles(128, 64));
  const Prediction p = run("flash2", Pass::fwd, ctx);
  const ScheduleRun counted = count("flash2", ctx);
  CHECK(p.l2_read_sectors() * 32 == counted.ledger.total(Level::hbm).read_bytes.value);
  // O is whole lines; L is 4 B a row, 128 rows a block = 512 B = 16 sectors.
  CHECK(p.l2_write_sectors() * 32 == counted.ledger.total(Level::hbm).write_bytes.value);
}

TEST_CASE("invariants for every schedule and pass: DRAM reads ≤ L2 reads; a flushed end writes each byte once") {
  for (const ScheduleInfo& info : schedule_catalog()) {
    for (Pass pass : {Pass::fwd, Pass::bwd}) {
      if (!has_pass(info.name, pass) || !runs_anywhere(info.name)) continue;
      const std::string name(info.name);
      CAPTURE(name);
      CAPTURE(pass == Pass::fwd);
      Problem pr = problem(512, 64, 2, 4, 640);
      pr.kv_heads = 2;
      const ScheduleContext ctx = context(*as_taken_by(name, pr), a100());
      const Prediction p = run(name, pass, ctx);
      CHECK(p.dram_read().value <= (p.l2_read_sectors() + p.l2_red_sectors()) * 32);
      // The L2 (40 MiB) holds the whole problem: nothing is evicted, so every sector written is written
      // to DRAM exactly once, at the end, and every input sector is read from DRAM once.
      CHECK(p.kernels.back().dram_write.value + p.dirty_at_end.value == p.dram_write().value);
      std::uint64_t written = 0;
      for (const auto& k : p.kernels) written += k.dram_write.value;
      CHECK(written == 0);
      CHECK(p.dram_write() == p.dirty_at_end);
      CHECK(p.dram_write().value <= p.l2_write_sectors() * 32 + p.l2_red_sectors() * 32);
    }
  }
}

TEST_CASE("flash2 forward, cold, with a large L2: DRAM reads are Q, K, V once; writes are O and L once") {
  const Problem pr = problem(2048, 64, 1, 8);
  const Prediction p = run("flash2", Pass::fwd, context(pr, a100(), tiles(128, 64)));
  CHECK(p.dram_read().value == 3ull * 8 * 2048 * 64 * 2);
  CHECK(p.dram_write().value == 8ull * 2048 * 64 * 2 + 8ull * 2048 * 4);
  // Warm: the inputs are still in the L2 from the previous run.
  const Prediction w = run("flash2", Pass::fwd, context(pr, a100(), tiles(128, 64)), true);
  CHECK(w.dram_read().value == 0);
}

TEST_CASE("under LRU, more L2 never means more DRAM traffic") {
  for (const char* name : {"naive", "flash1", "flash2"}) {
    for (Pass pass : {Pass::fwd, Pass::bwd}) {
      CAPTURE(name);
      double previous = 1e300;
      for (std::uint32_t ways : {1u, 2u, 4u, 8u, 16u, 32u}) {
        CAPTURE(ways);
        const Prediction p = run(name, pass, context(problem(1024, 64, 1, 4), l2_ways(ways)));
        const auto dram = static_cast<double>((p.dram_read() + p.dram_write()).value);
        CHECK(dram <= previous);
        previous = dram;
      }
    }
  }
}

TEST_CASE("a small L2 sends flash2's K/V re-reads to DRAM; launch order changes what is shared") {
  const Problem pr = problem(4096, 64, 1, 16);
  HardwareSpec hw = a100();
  hw.l2.capacity = Bytes(256 * 1024);  // 128 sets × 16 ways
  const Prediction small = run("flash2", Pass::fwd, context(pr, hw, tiles(128, 64)));
  const Prediction large = run("flash2", Pass::fwd, context(pr, a100(), tiles(128, 64)));
  CHECK(small.dram_read() > large.dram_read());
  // Heads first: the blocks running together belong to different heads and share nothing.
  ScheduleContext ctx = context(pr, hw, tiles(128, 64));
  GpuModelOptions o;
  o.order = LaunchOrder::heads_major;
  const Prediction heads = predict(*make_schedule("flash2", Pass::fwd, ctx), ctx, o);
  CHECK(heads.dram_read() > small.dram_read());
  CHECK(heads.l2_read_sectors() == small.l2_read_sectors());
}

TEST_CASE("a kernel whose block cannot fit an SM is an error") {
  ScheduleContext ctx = context(problem(1024, 256), a100(), tiles(128, 128));
  ctx.hardware.sm.sram_per_block = Bytes(1 << 20);  // the tile fits the limit we give it …
  ctx.hardware.sm.sram_per_sm = Bytes(1 << 20);
  ctx.kernel.warps = 4;  // … but 128 threads cannot hold its accumulators in 255 registers each
  CHECK_THROWS_WITH_AS((void)run("flash2", Pass::fwd, ctx), doctest::Contains("registers"), InputError);
}
