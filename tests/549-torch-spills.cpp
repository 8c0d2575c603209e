// PyTorch's FlashAttention-2 kernels spill registers: the L2 counts their local stores as writes beside
// the global stores the schedule emits. The model adds the spills its families measured
// (sim/schedule/flash2/torch_spills.h); these checks hold it to Nsight Compute's counts at every shape
// measured (tests/data/h100-fa2-spills.csv, scripts/fit-spills.py), the shapes the figures were fitted
// to and those held out.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "src/config/hardware_config.h"
#include "sim/gpu/gpu_model.h"
#include "sim/gpu/spill_stores.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

namespace {

struct Measured {
  std::uint64_t batch, heads, n, d;
  bool causal;
  std::string kernel, role;
  std::uint64_t blocks, l2_write, global_store, local_store, dram_write;
};

std::vector<Measured> measured() {
  std::ifstream in(std::string(IOSIM_SOURCE_DIR) + "/tests/data/h100-fa2-spills.csv");
  std::vector<Measured> out;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream s(line);
    for (std::string c; std::getline(s, c, ',');) f.push_back(c);
    REQUIRE(f.size() == 12);
    const auto u = [&](std::size_t i) { return std::stoull(f[i]); };
    out.push_back({u(0), u(1), u(2), u(3), f[4] == "1", f[5], f[11], u(6), u(7), u(8), u(9), u(10)});
  }
  return out;
}

KernelPrediction predicted(const Measured& m) {
  Problem p = problem(m.n, m.d, m.batch, m.heads);
  p.causal = m.causal;
  ScheduleContext ctx = context(p, config::load_hardware(std::string(IOSIM_SOURCE_DIR) + "/configs/h100.yaml"));
  ctx.kernel.source = KernelSource::pytorch;
  GpuModelOptions o;
  o.l2 = L2Mode::fast;  // the sectors the SMs ask for are exact in either replay
  const Pass pass = m.kernel == "flash2_bwd" ? Pass::bwd : Pass::fwd;
  const Prediction pr = predict(*make_schedule("flash2", pass, ctx), ctx, o);
  for (const KernelPrediction& k : pr.kernels) {
    if (k.name == m.kernel) return k;
  }
  FAIL("no kernel " << m.kernel);
  return {};
}

}  // namespace

TEST_CASE("PyTorch FlashAttention-2's L2 writes: global stores plus spills, within 10% of ncu") {
  const std::vector<Measured> rows = measured();
  REQUIRE(rows.size() == 16);
  int held_out = 0;
  for (const Measured& m : rows) {
    CAPTURE(m.batch);
    CAPTURE(m.heads);
    CAPTURE(m.n);
    CAPTURE(m.d);
    CAPTURE(m.causal);
    CAPTURE(m.kernel);
    CAPTURE(m.role);
    const KernelPrediction k = predicted(m);
    CHECK(k.blocks == m.blocks);
    // The schedule's stores are the kernel's global stores, to the sector; the spills are on top.
    CHECK(k.l2_write_sectors - k.l2_spill_write_sectors == m.global_store);
    CHECK(m.l2_write == m.global_store + m.local_store);
    const double err = (static_cast<double>(k.l2_write_sectors) - static_cast<double>(m.l2_write)) /
                       static_cast<double>(m.l2_write);
    CHECK(std::abs(err) < 0.10);
    if (m.role == "fitted") CHECK(k.l2_spill_write_sectors == m.local_store);  // the fit is exact
    held_out += m.role == "held-out";
  }
  CHECK(held_out == 6);
}

TEST_CASE("spills are counted for PyTorch's kernels where measured: not iosim's, not bf16, not another arch's code") {
  Problem p = problem(2048, 64, 2, 16);
  const HardwareSpec h100 = config::load_hardware(std::string(IOSIM_SOURCE_DIR) + "/configs/h100.yaml");
  ScheduleContext torch = context(p, h100);
  torch.kernel.source = KernelSource::pytorch;
  GpuModelOptions o;
  o.l2 = L2Mode::fast;
  const Prediction with = predict(*make_schedule("flash2", Pass::fwd, torch), torch, o);
  REQUIRE(with.kernels.size() == 1);
  CHECK(with.kernels[0].l2_spill_write_sectors == 966656);  // 512 blocks × (11 KiB + 16 steps × 3 KiB)
  ScheduleContext bf16 = torch;
  bf16.problem.dtype = DType::bf16;
  CHECK(spill_write_sectors(*make_schedule("flash2", Pass::fwd, bf16)->kernels()[0], bf16) == 0);
  const ScheduleContext own = context(p, h100);
  CHECK(spill_write_sectors(*make_schedule("flash2", Pass::fwd, own)->kernels()[0], own) == 0);
  ScheduleContext a100 = context(p, config::load_hardware(std::string(IOSIM_SOURCE_DIR) + "/configs/a100.yaml"));
  a100.kernel.source = KernelSource::pytorch;
  CHECK(spill_write_sectors(*make_schedule("flash2", Pass::fwd, a100)->kernels()[0], a100) == 0);
  CHECK(fa2_compiled_head_dim(48) == 64);
  CHECK(fa2_compiled_head_dim(128) == 128);
  CHECK(fa2_compiled_head_dim(160) == 192);
}
