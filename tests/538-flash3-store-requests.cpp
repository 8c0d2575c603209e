// iosim's flash3 backward stores dK and dV as 4-byte pairs straight from the wgmma accumulators: each
// 32-byte sector by two store requests, which the L2 counts both of. The model emits the stores so
// (Transfer::requests_per_sector, from the accumulator layout: wgmma_pair_store_requests) and adds the
// second request to the L2's writes, not to DRAM's (sim/gpu/store_requests.h). Checked here against
// Nsight Compute's per-kernel counts of that kernel (H200, 2026-12-04,
// tests/data/h200-flash3-bwd-ncu-l2-writes.csv); the whole pass against
// validate's runs is the ctest counters-*-flash3-bwd (tests/CMakeLists.txt).
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "sim/gpu/gpu_model.h"
#include "sim/gpu/store_requests.h"
#include "sim/schedule/flash3/flash3.h"
#include "src/config/hardware_config.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

namespace {

/// The quoted fields of one line of ncu's CSV.
std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out;
  bool quoted = false;
  std::string f;
  for (const char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.push_back(f);
      f.clear();
    } else {
      f += c;
    }
  }
  out.push_back(f);
  return out;
}

/// metric → value of the first launch of the kernel whose name holds `kernel`.
std::map<std::string, std::uint64_t> ncu_metrics(const std::string& kernel) {
  std::ifstream in(std::string(IOSIM_SOURCE_DIR) +
                   "/tests/data/h200-flash3-bwd-ncu-l2-writes.csv");
  std::map<std::string, std::uint64_t> out;
  std::string first_id;
  for (std::string line; std::getline(in, line);) {
    const std::vector<std::string> f = fields(line);
    if (f.size() != 15 || f[4].find(kernel) == std::string::npos) continue;
    if (first_id.empty()) first_id = f[0];
    if (f[0] != first_id) break;
    std::string digits;
    for (const char c : f[14]) {
      if (c != ',') digits += c;
    }
    out[f[12]] = std::stoull(digits);
  }
  return out;
}

}  // namespace

TEST_CASE("a pair store from wgmma accumulators: sector ÷ (8 columns × element) requests a sector") {
  CHECK(detail::wgmma_pair_store_requests(2, 32) == 2);  // fp16, bf16: an n8 block is 16 bytes
  CHECK(detail::wgmma_pair_store_requests(4, 32) == 1);  // fp32: a block fills the sector
  CHECK(detail::wgmma_pair_store_requests(1, 32) == 4);  // 8-bit
  CHECK(detail::wgmma_pair_store_requests(2, 64) == 4);
  CHECK(detail::wgmma_pair_store_requests(8, 32) == 1);  // a block wider than a sector
}

TEST_CASE("flash3's backward: the main kernel's L2 writes are ncu's global stores, two requests a dK, dV sector") {
  const std::map<std::string, std::uint64_t> m = ncu_metrics("flash3::bwd_kernel<");
  REQUIRE(m.size() == 7);
  const std::uint64_t global = m.at("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum");
  const std::uint64_t local = m.at("l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum");
  CHECK(m.at("lts__t_sectors_srcunit_tex_op_write.sum") == global + local);  // the L2's writes: stores + spills

  const Problem p = problem(1024, 128, 1, 33);
  const ScheduleContext ctx = context(p, config::load_hardware(std::string(IOSIM_SOURCE_DIR) + "/configs/h200.yaml"));
  GpuModelOptions o;
  o.flush_each_kernel = true;  // as ncu profiles each kernel
  const std::unique_ptr<Schedule> s = make_schedule("flash3", Pass::bwd, ctx);
  const Prediction pr = predict(*s, ctx, o);
  REQUIRE(pr.kernels.size() == 3);
  const KernelPrediction& main = pr.kernels[1];
  REQUIRE(main.name == "flash3_bwd");
  const std::uint64_t unique = 2 * 33 * 1024 * 128 * 2 / 32;  // dK and dV, fp16, in 32-byte sectors
  CHECK(repeated_store_sectors(*s->kernels()[1], ctx) == unique);
  CHECK(main.l2_write_sectors == 2 * unique);
  CHECK(main.l2_write_sectors == global);  // ncu's store sectors, exactly
  // Only the epilogue's stores repeat (DRAM's writes are held by the ctests counters-*-flash3-bwd).
  CHECK(repeated_store_sectors(*s->kernels()[0], ctx) == 0);
  CHECK(repeated_store_sectors(*s->kernels()[2], ctx) == 0);
  CHECK(repeated_store_sectors(*make_schedule("flash2", Pass::bwd, ctx)->kernels()[1], ctx) == 0);
}
