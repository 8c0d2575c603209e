// flash3 in `iosim measure` without a GPU: what the build cannot run (a tile other than the kernel's, of
// the forward or the backward) is one line and exit 2 before a GPU is looked for; and a TMA kernel's L2 reads are compared
// against the TMA counter, named in the table. (tests/gpu/test_flash3_dispatch.cpp: the model built as
// the kernel is.)
#include <doctest/doctest.h>

#include <limits>
#include <string>

#include "cuda/backend.h"
#include "sim/run.h"
#include "src/config/hardware_config.h"
#include "src/report/comparison.h"
#include "support/bad_input.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

namespace {

HardwareSpec h200() { return config::load_hardware(std::string(IOSIM_SOURCE_DIR) + "/configs/h200.yaml"); }

/// `iosim measure -c h200 ARGS` as a process (the GPU module sits next to the binary, not this test's).
CliResult measure(const std::string& args) { return process("measure -c h200 --n 1024 " + args); }

/// The GPU module is the real backend: it refuses a head dimension it lacks before looking for a GPU.
bool real_backend() {
  return measure("--d 96 --schedule flash2").err.find("the kernels take d = 64 or 128") != std::string::npos;
}

/// The real backend with flash3's kernels (built where nvcc targets sm_90a and CUTLASS's headers are found).
bool has_flash3() {
  return real_backend() &&
         measure("--d 128 --schedule flash3 --br 128 --bc 176").err.find("this build has no flash3 kernels") ==
             std::string::npos;
}

void check_one_line(const CliResult& r, const std::string& says) {
  CAPTURE(r.err);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find(says) != std::string::npos);
}

}  // namespace

TEST_CASE("measure --schedule flash3 --pass bwd: a tile other than the backward kernel's, one line, exit 2, before a GPU is looked for") {
  const CliResult r = measure("--d 128 --schedule flash3 --pass bwd --br 128 --bc 128");
  if (!real_backend()) {
    check_one_line(r, "needs a CUDA GPU");  // no backend in this build: nothing but that to say
    return;
  }
  if (!has_flash3()) {
    MESSAGE("this build has no flash3 kernel: nothing to refuse a tile of");
    return;
  }
  check_one_line(r, "the flash3 kernel has one tile, 64x128 with 12 warps (a producer and 2 consumer warpgroups) and 2 "
                    "Q/dO stages; asked for 128x128");
}

TEST_CASE("measure --schedule flash3 refuses a tile, warps, stages, type or d the kernel lacks, in one line") {
  if (!has_flash3()) {
    MESSAGE("this build has no flash3 kernel: nothing to refuse a tile of");
    return;
  }
  check_one_line(measure("--d 128 --schedule flash3 --br 128 --bc 176"),
                 "the flash3 kernel has one tile, 128x128 with 12 warps (a producer and 2 consumer warpgroups) and 2 "
                 "K/V stages; asked for 128x176");
  check_one_line(measure("--d 128 --schedule flash3 --stages 3"), ", 3 stages");
  check_one_line(measure("--d 128 --schedule flash3 --warps 8"), "asked for 128x128 with 8 warps");
  check_one_line(measure("--d 96 --schedule flash3"),
                 "flash3 fwd d=96 fp16: no flash3 kernel of this pass, type and head dimension in this build");
  const CliResult bf16 = measure("--d 64 --dtype bf16 --schedule flash3 --br 128 --bc 176");
  if (bf16.err.find("one tile") == std::string::npos) {  // the default build: fp16, d = 128 only
    check_one_line(bf16, "flash3 fwd d=64 bf16: no flash3 kernel of this pass, type and head dimension in this build "
                         "(compiled: fwd fp16 d=128");
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
  CHECK(table.find("lts__t_sectors_srcunit_tex_op_read × 32 saw 32.00 kB (50% of it)") != std::string::npos);
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
