// PyTorch's FlashAttention-2 backward under Nsight Compute: ncu flushes the L2 before every kernel it
// profiles, so each of the three kernels reads its inputs from DRAM whatever the kernel before it left
// in the L2. The closed form of those reads (sim/schedule/flash2/fa2_bwd_reads.h) against ncu's counts
// at every measured shape (tests/data/h100-fa2-bwd-reads.csv, scripts/fa2-bwd-reads.py); the GPU
// model, which keeps the L2 between kernels as a timed run does, agrees with it on the first kernel.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "sim/gpu/gpu_model.h"
#include "sim/schedule/flash2/fa2_bwd_reads.h"
#include "src/config/hardware_config.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;
using iosim::detail::fa2_bwd_flushed_reads;
using iosim::detail::Fa2BwdReads;

namespace {

struct Measured {
  std::uint64_t batch, heads, n, d;
  bool causal;
  std::string kernel;
  std::uint64_t dram_read;
};

std::vector<Measured> measured() {
  std::ifstream in(std::string(IOSIM_SOURCE_DIR) + "/tests/data/h100-fa2-bwd-reads.csv");
  std::vector<Measured> out;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream s(line);
    for (std::string c; std::getline(s, c, ',');) f.push_back(c);
    REQUIRE(f.size() == 7);
    const auto u = [&](std::size_t i) { return std::stoull(f[i]); };
    out.push_back({u(0), u(1), u(2), u(3), f[4] == "1", f[5], u(6)});
  }
  return out;
}

std::uint64_t of(const Fa2BwdReads& r, const std::string& kernel) {
  if (kernel == "preprocess") return r.preprocess;
  if (kernel == "main") return r.main;
  REQUIRE(kernel == "convert");
  return r.convert;
}

}  // namespace

TEST_CASE("PyTorch FlashAttention-2 backward, each kernel from an empty L2: the closed form") {
  // One head, n = 8192, d = 64, fp16: O, dO 1 MiB each; Q, K, V, dO 4 MiB, LSE and D 32 KiB each, and the
  // fp32 dQaccum 2 MiB in the main kernel; the convert kernel reads dQaccum alone.
  constexpr Fa2BwdReads r = fa2_bwd_flushed_reads(1, 1, 8192, 8192, 64, 2);
  static_assert(r.preprocess == 2097152);
  static_assert(r.main == 4194304 + 65536 + 2097152);
  static_assert(r.convert == 2097152);
  // Grouped K/V heads: K and V once per K/V head, the rest per query head.
  constexpr Fa2BwdReads g = fa2_bwd_flushed_reads(8, 2, 1024, 4096, 128, 2);
  static_assert(g.main == 2 * 8 * 1024 * 128 * 2 + 2 * 2 * 4096 * 128 * 2 + 2 * 8 * 1024 * 4 + 8 * 1024 * 128 * 4);
}

TEST_CASE("ncu's DRAM reads of PyTorch's FA2 backward kernels are the closed form's from a flushed L2") {
  const std::vector<Measured> rows = measured();
  REQUIRE(rows.size() == 24);
  const HardwareSpec h100 = config::load_hardware(std::string(IOSIM_SOURCE_DIR) + "/configs/h100.yaml");
  for (const Measured& m : rows) {
    CAPTURE(m.batch);
    CAPTURE(m.heads);
    CAPTURE(m.n);
    CAPTURE(m.d);
    CAPTURE(m.causal);
    CAPTURE(m.kernel);
    const std::uint64_t bh = m.batch * m.heads;
    const std::uint64_t floor = of(fa2_bwd_flushed_reads(bh, bh, m.n, m.n, m.d, 2), m.kernel);
    // Every byte once: the floor, at every kernel and shape.
    CHECK(m.dram_read >= floor);
    // Within 1% of it unless the fp32 dQaccum the main kernel reduces into is larger than the L2, where
    // its lines can be evicted and fetched again.
    const bool refetch = m.kernel == "main" && bh * m.n * m.d * 4 > h100.l2.capacity.value;
    if (!refetch) CHECK(static_cast<double>(m.dram_read) <= 1.01 * static_cast<double>(floor));
  }
}

TEST_CASE("the GPU model keeps the L2 between the backward's kernels; flushed before each, it reads what ncu counts") {
  const HardwareSpec h100 = config::load_hardware(std::string(IOSIM_SOURCE_DIR) + "/configs/h100.yaml");
  const auto predicted = [&](const Measured& m, bool flush) {
    Problem p = problem(m.n, m.d, m.batch, m.heads);
    p.causal = m.causal;
    ScheduleContext ctx = context(p, h100);
    ctx.kernel.source = KernelSource::pytorch;
    GpuModelOptions o;
    o.l2 = L2Mode::exact;
    o.flush_each_kernel = flush;
    std::map<std::string, std::uint64_t> out;
    const Prediction pr = predict(*make_schedule("flash2", Pass::bwd, ctx), ctx, o);
    CHECK(pr.flushed_each_kernel == flush);
    for (const KernelPrediction& k : pr.kernels) out[k.name] = k.dram_read.value;
    REQUIRE(out.size() == 3);
    return out;
  };
  const std::map<std::string, std::string> names = {
      {"preprocess", "flash2_bwd_preprocess"}, {"main", "flash2_bwd"}, {"convert", "flash2_bwd_convert"}};
  std::map<std::string, std::map<std::string, std::uint64_t>> kept, flushed;
  for (const Measured& m : measured()) {
    CAPTURE(m.batch);
    CAPTURE(m.heads);
    CAPTURE(m.n);
    CAPTURE(m.d);
    CAPTURE(m.causal);
    CAPTURE(m.kernel);
    const std::string shape = std::to_string(m.batch) + "," + std::to_string(m.heads) + "," + std::to_string(m.n) +
                              "," + std::to_string(m.d) + (m.causal ? "c" : "");
    if (!flushed.contains(shape)) {
      kept[shape] = predicted(m, false);
      flushed[shape] = predicted(m, true);
    }
    const double measured_bytes = static_cast<double>(m.dram_read);
    const double f = static_cast<double>(flushed[shape][names.at(m.kernel)]);
    const std::uint64_t bh = m.batch * m.heads;
    const double floor = static_cast<double>(of(fa2_bwd_flushed_reads(bh, bh, m.n, m.n, m.d, 2), m.kernel));
    CHECK(f >= floor);
    // Within 1% of ncu; where dQaccum outgrows the L2 (its lines fetched again), no farther from ncu than
    // the closed form's floor is: the model's L2 accounts for part of the refetches.
    const double err = std::abs(measured_bytes - f) / measured_bytes;
    const bool refetch = m.kernel == "main" && bh * m.n * m.d * 4 > h100.l2.capacity.value;
    CHECK(err < (refetch ? std::max(0.01, (measured_bytes - floor) / measured_bytes) : 0.01));
    // The first kernel starts on an empty L2 either way.
    if (m.kernel == "preprocess") CHECK(kept[shape][names.at(m.kernel)] == flushed[shape][names.at(m.kernel)]);
  }
  // (1, 1, 8192, 64): the whole backward (10 MB) fits the 50 MiB L2: in a timed run the main kernel finds dO
  // and the zeroed dQaccum there, and the convert kernel all of dQaccum; ncu's flush makes them read them again.
  const Fa2BwdReads f = fa2_bwd_flushed_reads(1, 1, 8192, 8192, 64, 2);
  CHECK(kept["1,1,8192,64"]["flash2_bwd"] == f.main - 2 * 8192 * 64 - 8192 * 64 * 4 - 8192 * 4);
  CHECK(kept["1,1,8192,64"]["flash2_bwd_convert"] == 0);
  CHECK(flushed["1,1,8192,64"]["flash2_bwd"] == f.main);
  CHECK(flushed["1,1,8192,64"]["flash2_bwd_convert"] == f.convert);
}
