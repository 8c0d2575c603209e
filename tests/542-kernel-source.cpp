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
  // The same counts (the schedule is the same), another time.
  CHECK(torch["hbm"]["read_bytes"].as<std::uint64_t>() == own["hbm"]["read_bytes"].as<std::uint64_t>());
  CHECK(torch["predicted"]["cold"]["time_ms"].as<double>() != own["predicted"]["cold"]["time_ms"].as<double>());
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
      {{"-c", "h200", "--n", "2048", "--d", "64", "--kernels", "torch"}, "--kernels must be iosim or pytorch"},
      {{"-c", "h200", "--n", "2048", "--d", "64", "--kernels", ""}, "--kernels: expected a value"},
      {{"measure", "-c", "h200", "--n", "2048", "--d", "64", "--schedule", "flash2", "--kernels", "pytorch"},
       "measure runs iosim's kernels"},
  };
  check_bad_inputs(cases);
}
