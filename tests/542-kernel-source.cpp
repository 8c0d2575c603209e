// `--kernels pytorch`: the same schedule, timed as PyTorch's compiled kernels (SDPA's flash backend)
// run it — the registry's pytorch_kernels name their families.
#include <doctest/doctest.h>

#include "sim/schedule/kernel_family.h"
#include "sim/schedule/registry.h"
#include "support/bad_input.h"
#include "support/cli_run.h"

using iosim::family_of;
using iosim::KernelFamilyOf;
using iosim::KernelSource;
using iosim::schedule_catalog;
using iosim::ScheduleEntry;
using namespace iosim::test;

namespace {

YAML::Node schedule_of(const CliResult& r) {
  REQUIRE_MESSAGE(r.code == 0, r.err);
  return parse_json(r.out)["runs"][0]["schedules"][0];
}

}  // namespace

TEST_CASE("a kernel's family depends on whose kernel runs it") {
  CHECK(family_of("flash2_fwd").name == "fa2-fwd");
  CHECK(family_of("flash2_fwd", KernelSource::pytorch).name == "torch-fa2-fwd");
  CHECK(family_of("flash2_bwd", KernelSource::pytorch).name == "torch-fa2-bwd");
  CHECK(family_of("flash2_bwd_convert", KernelSource::pytorch).name == "elementwise");
  CHECK(family_of("flash1_fwd", KernelSource::pytorch).name == "library");  // PyTorch has no such kernel
  // Every family a registry entry names exists (family_of falls back to "library" otherwise).
  for (const ScheduleEntry& e : schedule_catalog()) {
    for (const KernelFamilyOf& k : e.pytorch_kernels) {
      CHECK_MESSAGE(family_of(k.kernel, KernelSource::pytorch).name == k.family, k.kernel);
    }
  }
}

TEST_CASE("--kernels pytorch times flash2 with PyTorch's families, and says so in the JSON") {
  const YAML::Node own = schedule_of(cli({"-c", "h200", "--schedule", "flash2", "--batch", "2", "--heads", "16", "--n",
                                          "2048", "--d", "64", "--predict", "--quiet", "-f", "json"}));
  const YAML::Node torch = schedule_of(cli({"-c", "h200", "--schedule", "flash2", "--batch", "2", "--heads", "16", "--n",
                                            "2048", "--d", "64", "--predict", "--quiet", "-f", "json", "--kernels",
                                            "pytorch"}));
  CHECK(own["kernel_config"]["kernels"].as<std::string>() == "iosim");
  CHECK(torch["kernel_config"]["kernels"].as<std::string>() == "pytorch");
  const YAML::Node k = torch["predicted"]["cold"]["kernels"][0];
  CHECK(k["name"].as<std::string>() == "flash2_fwd");
  CHECK(k["time"]["family"].as<std::string>() == "torch-fa2-fwd");
  CHECK(k["time"]["model_registers"].as<int>() == 255);  // ncu: PyTorch's kernel holds 255 at every tile
  // The same schedule at another default tile (B_c 64, the kernel menu's, against FlashAttention-2's 128)
  // and the same B_r, so the same HBM reads (flash2's forward traffic depends on T_r only), another time.
  CHECK(own["tile"]["bc"].as<int>() == 64);
  CHECK(torch["tile"]["bc"].as<int>() == 128);
  CHECK(torch["tile"]["br"].as<int>() == own["tile"]["br"].as<int>());
  CHECK(torch["hbm"]["read_bytes"].as<std::uint64_t>() == own["hbm"]["read_bytes"].as<std::uint64_t>());
  CHECK(torch["predicted"]["cold"]["time_ms"].as<double>() != own["predicted"]["cold"]["time_ms"].as<double>());
}

TEST_CASE("--kernels pytorch: flash2's default tiles are FlashAttention-2's, not the kernel menu's") {
  // The menu (cuda/kernels/menu.csv) lists iosim's kernels; PyTorch's run FlashAttention-2's tiles
  // (defaults.h): forward 128 × 128 at d = 64 and 128 × 64 at d = 128, backward 128 × 128 and 64 × 128
  // on an H200 (≥ 144 KiB of shared memory a block).
  struct Case {
    const char* d;
    const char* pass;
    int br, bc;          // FlashAttention-2's, with --kernels pytorch
    int own_br, own_bc;  // the kernel menu's, with iosim's kernels
  };
  const Case cases[] = {{"64", "fwd", 128, 128, 128, 64},
                        {"128", "fwd", 128, 64, 64, 64},
                        {"64", "bwd", 128, 128, 64, 64},
                        {"128", "bwd", 64, 128, 64, 64}};
  const auto tile = [](const Case& c, const std::string& kernels) {
    return schedule_of(cli({"-c", "h200", "--schedule", "flash2", "--n", "2048", "--d", c.d, "--pass", c.pass,
                            "--kernels", kernels, "--quiet", "-f", "json"}))["tile"];
  };
  for (const Case& c : cases) {
    CAPTURE(c.d);
    CAPTURE(c.pass);
    const YAML::Node torch = tile(c, "pytorch");
    CHECK(torch["br"].as<int>() == c.br);
    CHECK(torch["bc"].as<int>() == c.bc);
    CHECK(torch["source"].as<std::string>() == "FlashAttention-2");
    const YAML::Node own = tile(c, "iosim");
    CHECK(own["br"].as<int>() == c.own_br);
    CHECK(own["bc"].as<int>() == c.own_bc);
    CHECK(own["source"].as<std::string>() == "kernel menu");
  }
}

TEST_CASE("--kernels pytorch alone runs the schedules PyTorch has") {
  const CliResult r = cli({"-c", "h200", "--n", "2048", "--d", "64", "--kernels", "pytorch", "-f", "json"});
  REQUIRE(r.code == 0);
  const YAML::Node s = parse_json(r.out)["runs"][0]["schedules"];
  REQUIRE(s.size() == 1);
  CHECK(s[0]["name"].as<std::string>() == "flash2");
}

TEST_CASE("--kernels: a schedule PyTorch does not run, an unknown source, and measure are one line each") {
  const BadInput cases[] = {
      {{"-c", "h200", "--n", "2048", "--d", "64", "--schedule", "flash1", "--kernels", "pytorch"},
       "--kernels pytorch: PyTorch's SDPA flash backend runs flash2 only, not flash1"},
      {{"-c", "h200", "--n", "2048", "--d", "64", "--kernels", "torch"}, "--kernels must be iosim, pytorch or triton"},
      // Triton's compiled kernels price flash2's forward only: anything else is refused before compiling.
      {{"-c", "h200", "--n", "2048", "--d", "64", "--kernels", "triton", "--pass", "bwd", "--predict"},
       "--kernels triton: only the forward pass is priced from Triton's compiled kernels (got --pass bwd)"},
      {{"-c", "h200", "--n", "2048", "--d", "64", "--schedule", "flash1", "--kernels", "triton", "--predict"},
       "--kernels triton: the project's Triton kernels run flash2's forward only, not flash1"},
      {{"tiles", "-c", "h200", "--n", "2048", "--d", "64", "--kernels", "triton", "--pass", "bwd"},
       "--kernels triton: only the forward pass"},
      {{"-c", "h200", "--n", "2048", "--d", "64", "--kernels", ""}, "--kernels: expected a value"},
      {{"measure", "-c", "h200", "--n", "2048", "--d", "64", "--schedule", "flash2", "--kernels", "pytorch"},
       "measure runs iosim's kernels"},
  };
  check_bad_inputs(cases);
}
