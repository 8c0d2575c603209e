// The kernel families' register model against ptxas: every kernel the project compiles (the full
// menu, results/ptxas-registers-sm90-cuda13.0.json) built as a schedule with the same tile, warps
// and stages, its fragment registers through its family's model, compared with what ptxas reported.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/schedule/kernel_family.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

namespace {

struct Record {
  std::string schedule, pass, dtype;
  std::uint64_t d = 0, br = 0, bc = 0;
  std::uint32_t warps = 0, stages = 0, registers = 0;
};

/// The value of "key" in one flat JSON object's text.
std::string field(const std::string& obj, const std::string& key) {
  const std::size_t at = obj.find("\"" + key + "\":");
  REQUIRE(at != std::string::npos);
  std::size_t v = obj.find_first_not_of(" ", at + key.size() + 3);
  if (obj[v] == '"') return obj.substr(v + 1, obj.find('"', v + 1) - v - 1);
  return obj.substr(v, obj.find_first_of(",}\n", v) - v);
}

std::vector<Record> ptxas_records() {
  std::ifstream in(std::string(IOSIM_SOURCE_DIR) + "/results/ptxas-registers-sm90-cuda13.0.json");
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  const std::size_t end = text.find("\"other_kernels\"");
  std::vector<Record> out;
  for (std::size_t at = text.find("\"schedule\""); at < end; at = text.find("\"schedule\"", at + 1)) {
    const std::string obj = text.substr(at, text.find('}', at) - at);
    Record r;
    r.schedule = field(obj, "schedule");
    r.pass = field(obj, "pass");
    r.dtype = field(obj, "dtype");
    r.d = std::stoull(field(obj, "d"));
    r.br = std::stoull(field(obj, "br"));
    r.bc = std::stoull(field(obj, "bc"));
    r.warps = static_cast<std::uint32_t>(std::stoul(field(obj, "warps")));
    r.stages = static_cast<std::uint32_t>(std::stoul(field(obj, "stages")));
    r.registers = static_cast<std::uint32_t>(std::stoul(field(obj, "registers")));
    out.push_back(r);
  }
  return out;
}

}  // namespace

TEST_CASE("the families' register model is within 17% of ptxas on every compiled kernel, 5% at the median") {
  const std::vector<Record> recs = ptxas_records();
  REQUIRE(recs.size() == 186);
  HardwareSpec hw = a100();
  hw.sm.sram_per_block = hw.sm.sram_per_sm = Bytes(232448);  // the H200's, which the menu was built for
  std::vector<double> errors;
  std::size_t refused = 0;
  for (const Record& r : recs) {
    CAPTURE(r.schedule);
    CAPTURE(r.pass);
    CAPTURE(r.br);
    CAPTURE(r.bc);
    CAPTURE(r.d);
    CAPTURE(r.warps);
    CAPTURE(r.stages);
    Problem p = problem(4096, r.d);
    p.dtype = r.dtype == "bf16" ? DType::bf16 : DType::fp16;
    ScheduleContext ctx = context(p, hw, tiles(r.br, r.bc));
    ctx.kernel = {r.warps, r.stages};
    std::unique_ptr<Schedule> s;
    try {
      s = make_schedule(r.schedule, r.pass == "fwd" ? Pass::fwd : Pass::bwd, ctx);
    } catch (const InputError&) {
      ++refused;  // the model's SRAM plan does not hold this tile (flash1's backward keeps dK, dV in SRAM)
      continue;
    }
    const Kernel* main = nullptr;
    for (const Kernel* k : s->kernels()) {
      if (k->launch().fragment_registers > 0) main = k;
    }
    REQUIRE(main != nullptr);
    const std::uint32_t model = family_registers(family_of(main->name()), main->launch().fragment_registers);
    const double err = std::abs(static_cast<double>(model) - r.registers) / r.registers;
    CHECK(err <= 0.17);
    errors.push_back(err);
  }
  MESSAGE(errors.size(), " kernels compared, ", refused, " tiles the model's SRAM plan refuses");
  CHECK(refused <= 10);
  std::sort(errors.begin(), errors.end());
  CHECK(errors[errors.size() / 2] <= 0.05);
}
