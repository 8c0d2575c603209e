// What the decoding kernels write, as L2 requests and as DRAM writes, in closed form. The split kernel
// (cuda/kernels/flashdecode.cuh) stores only the rows that exist (no 64-row tile padding): Opart as fp32
// rows of d, Lpart one fp32 per row; the combine stores O (the element type) and L one fp32 per row. With
// one row per grid head (one query, group 1) every block's 4-byte Lpart or L store is a request of its
// own, one L2 sector each; the L2 is write-back and these tensors fit it, so each dirty sector reaches
// DRAM once, in the drain: DRAM writes are the tensors' bytes. The H100 measured both kernels' L2 writes
// exactly so (lts__t_sectors_srcunit_tex_op_write), and their DRAM writes above these bytes by tens of kB
// that the measurement itself writes (docs/validation.md, "Decoding").
#include <doctest/doctest.h>

#include "sim/gpu/gpu_model.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

namespace {

struct Writes {
  std::uint64_t split_sectors = 0;    ///< the split kernel's L2 write sectors
  std::uint64_t combine_sectors = 0;  ///< the combine's
  std::uint64_t dram = 0;             ///< DRAM writes, the drain included
};

Writes predict_writes(const std::string& schedule, const Problem& p, std::uint64_t splits) {
  ScheduleContext ctx = context(p, hopper());
  ctx.splits = splits;
  const auto s = make_schedule(schedule, Pass::fwd, ctx);
  GpuModelOptions o;
  o.warm = false;
  const Prediction g = predict(*s, ctx, o);
  Writes w;
  REQUIRE(!g.kernels.empty());
  w.split_sectors = g.kernels.front().l2_write_sectors;
  if (g.kernels.size() > 1) w.combine_sectors = g.kernels.back().l2_write_sectors;
  w.dram = g.dram_write().value;
  return w;
}

}  // namespace

SCENARIO("decoding writes each row once: L2 sectors per 4-byte statistic, DRAM bytes of the tensors") {
  GIVEN("batch 2, 32 heads (group 1), one query, 1,024 keys, d = 64, fp16") {
    const Problem p = problem(1, 64, 2, 32, 1024);
    const std::uint64_t rows = 2 * 32, d = 64;
    for (const char* schedule : {"flashdecode", "flashdecode-heads"}) {
      INFO("schedule ", schedule);
      THEN("4 splits: Opart rows of 256 B, Lpart a sector per row; the combine: O rows of 128 B, L a sector per row") {
        const std::uint64_t s = 4;
        const Writes w = predict_writes(schedule, p, s);
        CHECK(w.split_sectors == s * rows * d * 4 / 32 + s * rows);  // 2,048 + 256
        CHECK(w.combine_sectors == rows * d * 2 / 32 + rows);         // 256 + 64
        CHECK(w.dram == s * rows * (d + 1) * 4 + rows * (2 * d + 4));  // 66,560 + 8,448 = 75,008
        CHECK(w.dram == 75008);
      }
      THEN("not split: the split kernel writes O and L itself") {
        const Writes w = predict_writes(schedule, p, 1);
        CHECK(w.split_sectors == rows * d * 2 / 32 + rows);
        CHECK(w.combine_sectors == 0);
        CHECK(w.dram == rows * (2 * d + 4));
      }
    }
  }
}
