// flash3 in `iosim measure` and `validate` without a GPU: what the build cannot run (the backward, a tile
// other than the kernel's) is one line and exit 2 before a GPU is looked for; the model is configured as
// the kernel is built (128 × 128, 12 warps, 2 stages); and a TMA kernel's L2 reads are compared against
// the TMA counter, named in the table.
#include <doctest/doctest.h>

#include <limits>
#include <string>

#include "cuda/backend.h"
#include "sim/run.h"
#include "src/cli/gpu_spec.h"
#include "src/config/hardware_config.h"
#include "src/report/comparison.h"
#include "support/bad_input.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

namespace {

HardwareSpec h200() { return config::load_hardware(std::string(IOSIM_SOURCE_DIR) + "/configs/h200.yaml"); }

/// The backend's flash3 forward at d = 128, fp16, or nothing (a build without CUDA or without flash3).
bool has_flash3() { return !gpu::compiled_tiles(gpu::Algo::flash3, gpu::Direction::fwd, 128, DType::fp16).empty(); }

/// Whether the GPU module is the real backend (it has flash2's kernels).
bool real_backend() { return !gpu::compiled_tiles(gpu::Algo::flash2, gpu::Direction::fwd, 64, DType::fp16).empty(); }

}  // namespace

TEST_CASE("measure --schedule flash3 --pass bwd: no backward kernel, one line, exit 2, with or without a GPU") {
  const CliResult r = cli({"measure", "-c", "h200", "--n", "1024", "--d", "128", "--schedule", "flash3", "--pass", "bwd"});
  CAPTURE(r.err);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(lines(r.err) == 1);
  if (!real_backend()) {
    CHECK(r.err.find("needs a CUDA GPU") != std::string::npos);
    return;
  }
  CHECK(r.err.find("flash3 bwd: the flash3 backward kernel does not exist") != std::string::npos);
}

TEST_CASE("measure --schedule flash3 refuses a tile, warps or stages the kernel lacks, in one line") {
  if (!has_flash3()) {
    MESSAGE("this build has no flash3 kernel: nothing to refuse a tile of");
    return;
  }
  const BadInput cases[] = {
      {{"measure", "-c", "h200", "--n", "1024", "--d", "128", "--schedule", "flash3", "--br", "128", "--bc", "176"},
       "the flash3 kernel has one tile, 128x128 with 12 warps (a producer and 2 consumer warpgroups) and 2 K/V stages"},
      {{"measure", "-c", "h200", "--n", "1024", "--d", "128", "--schedule", "flash3", "--stages", "3"}, "3 stages"},
      {{"measure", "-c", "h200", "--n", "1024", "--d", "128", "--schedule", "flash3", "--warps", "8"}, "with 8 warps"},
      {{"measure", "-c", "h200", "--n", "1024", "--d", "96", "--schedule", "flash3"}, "the kernels take d = 64 or 128"},
  };
  check_bad_inputs(cases);
  if (gpu::compiled_tiles(gpu::Algo::flash3, gpu::Direction::fwd, 64, DType::bf16).empty()) {
    const BadInput uncompiled[] = {
        {{"measure", "-c", "h200", "--n", "1024", "--d", "64", "--dtype", "bf16", "--schedule", "flash3"},
         "flash3 fwd d=64 bf16: no flash3 kernel of this type and head dimension in this build (compiled: fp16 d=128"}};
    check_bad_inputs(uncompiled);
  }
}

TEST_CASE("measure's model of flash3 is built as the kernel: 128 x 128, 3 warpgroups (12 warps), 2 stages") {
  if (!has_flash3()) {
    MESSAGE("this build has no flash3 kernel");
    return;
  }
  for (const bool causal : {false, true}) {
    CAPTURE(causal);
    Problem p = problem(4096, 128, 1, 16);
    p.causal = causal;
    const cli::GpuCase c = cli::gpu_case("flash3", Pass::fwd, p, h200(), {}, {}, false);
    CHECK(c.spec.algo == gpu::Algo::flash3);
    CHECK(c.spec.br == 128);
    CHECK(c.spec.bc == 128);
    CHECK(c.model.tiles.br == 128u);
    CHECK(c.model.tiles.bc == 128u);
    CHECK(c.model.kernel.warps == 12u);
    CHECK(c.model.kernel.stages == 2u);
    const auto s = make_schedule("flash3", Pass::fwd, c.model);
    CHECK(s->tiles().br == 128u);
    CHECK(s->tiles().bc == 128u);
    CHECK(s->kernel_config().warps == 12u);
    CHECK(s->kernel_config().stages == 2u);
  }
}

TEST_CASE("a TMA kernel's L2 reads are compared against the TMA counter; other kernels' against the L2 sectors") {
  RunOptions opt;
  opt.predict = true;
  const ScheduleContext ctx = context(problem(1024, 128, 1, 2), h200(), tiles(128, 128));
  const ScheduleRun model = run_schedule(*make_schedule("flash3", Pass::fwd, ctx), ctx, opt);
  gpu::Measurement m;
  m.has_counters = true;
  m.counters.l2_read_sectors = 1000;
  m.counters.tma_read_bytes = 64000;
  m.has_tma_counter = true;
  m.tma_loads = true;
  const double predicted = static_cast<double>(model.predicted->cold.l2_read_sectors()) * model.predicted->cold.sector_bytes;
  const report::Comparison tma = report::compare(model, m);
  CHECK(tma.rows[0].counter == "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld (TMA)");
  CHECK(tma.rows[0].measured == 64000);
  CHECK(tma.rows[0].predicted == predicted);
  CHECK(tma.rows[0].available);
  const std::string table = report::render_comparison_table(tma, "h200");
  CHECK(table.find("l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld") != std::string::npos);
  CHECK(table.find("lts__t_sectors_srcunit_tex_op_read × 32 saw 32.0 kB (50% of it)") != std::string::npos);
  m.has_tma_counter = false;  // dropped by the metric set: the row says n/a, not the L2 side's count
  CHECK(!report::compare(model, m).rows[0].available);
  m.tma_loads = false;
  const report::Comparison lsu = report::compare(model, m);
  CHECK(lsu.rows[0].counter == "lts__t_sectors_srcunit_tex_op_read × 32");
  CHECK(lsu.rows[0].measured == 1000 * model.predicted->cold.sector_bytes);
  CHECK(lsu.rows[0].available);
  CHECK(report::render_comparison_table(lsu, "h200").find("tma_ld") == std::string::npos);
  CHECK(report::measured_only("flash3", Pass::fwd, m, {}).rows[0].counter == "lts__t_sectors_srcunit_tex_op_read × 32");
}
