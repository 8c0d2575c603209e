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
    // A grid that fills the GPU: a small one runs the split-KV forward (the test below).
    return schedule_of(cli({"-c", "h200", "--schedule", "flash2", "--batch", "8", "--heads", "16", "--n", "2048", "--d",
                            c.d, "--pass", c.pass, "--kernels", kernels, "--quiet", "-f", "json"}))["tile"];
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
  // SDPA's flash backend (flash2) and its math path (eager), in the catalog's order.
  REQUIRE(s.size() == 2);
  CHECK(s[0]["name"].as<std::string>() == "flash2");
  CHECK(s[1]["name"].as<std::string>() == "eager");
}

TEST_CASE("--kernels: a schedule PyTorch does not run, an unknown source, and measure are one line each") {
  const BadInput cases[] = {
      {{"-c", "h200", "--n", "2048", "--d", "64", "--schedule", "flash1", "--kernels", "pytorch"},
       "--kernels pytorch: PyTorch's kernels run flash2 and eager only, not flash1"},
      {{"-c", "h200", "--n", "2048", "--d", "64", "--kernels", "torch"}, "--kernels must be iosim, pytorch or triton"},
      // Triton's compiled kernels price flash2 only: another schedule is refused before compiling.
      {{"-c", "h200", "--n", "2048", "--d", "64", "--schedule", "flash1", "--kernels", "triton", "--predict"},
       "--kernels triton: the project's Triton kernels run flash2 only, not flash1"},
      {{"-c", "h200", "--n", "2048", "--d", "64", "--kernels", ""}, "--kernels: expected a value"},
      {{"measure", "-c", "h200", "--n", "2048", "--d", "64", "--schedule", "flash2", "--kernels", "pytorch"},
       "measure runs iosim's kernels"},
  };
  check_bad_inputs(cases);
}

TEST_CASE("--kernels pytorch on a grid that leaves SMs idle: FlashAttention-2's split-KV forward") {
  // One head, n = 8192, d = 64 on 132 SMs: 128 Q tiles of 64 rows fill under 0.8 of 264 slots, so
  // FlashAttention-2's heuristic splits the 32 K/V tiles of 256 two ways (ncu on an H200 showed
  // flash_fwd_splitkv_kernel with grid 128 × 2, then the combine kernel).
  const auto run = [](std::vector<std::string> extra) {
    std::vector<std::string> args = {"-c", "h200", "--schedule", "flash2", "--n", "8192", "--d", "64", "--predict",
                                     "--quiet", "-f", "json", "--kernels", "pytorch"};
    args.insert(args.end(), extra.begin(), extra.end());
    return schedule_of(cli(args));
  };
  const YAML::Node split = run({});
  CHECK(split["variant"].as<std::string>() == "split-KV");
  CHECK(split["tile"]["br"].as<int>() == 64);
  CHECK(split["tile"]["bc"].as<int>() == 256);
  const YAML::Node kernels = split["predicted"]["cold"]["kernels"];
  REQUIRE(kernels.size() == 2);
  CHECK(kernels[0]["name"].as<std::string>() == "flashdecode_split");
  CHECK(kernels[0]["blocks"].as<int>() == 256);
  CHECK(kernels[0]["time"]["family"].as<std::string>() == "torch-fa2-fwd");
  CHECK(kernels[1]["name"].as<std::string>() == "flashdecode_combine");
  // The counts are flashdecode-heads' with two splits.
  const YAML::Node same = schedule_of(cli({"-c", "h200", "--schedule", "flashdecode-heads", "--n", "8192", "--d", "64",
                                           "--splits", "2", "--quiet", "-f", "json"}));
  CHECK(split["hbm"]["read_bytes"].as<std::uint64_t>() == same["hbm"]["read_bytes"].as<std::uint64_t>());
  CHECK(split["hbm"]["write_bytes"].as<std::uint64_t>() == same["hbm"]["write_bytes"].as<std::uint64_t>());
  // A grid that fills the GPU, or tiles the user chose, keep the one-block-per-Q-tile kernel.
  const YAML::Node full = run({"--batch", "4", "--heads", "16"});
  CHECK(full["predicted"]["cold"]["kernels"][0]["name"].as<std::string>() == "flash2_fwd");
  const YAML::Node chosen = run({"--br", "128", "--bc", "64"});
  CHECK(chosen["predicted"]["cold"]["kernels"][0]["name"].as<std::string>() == "flash2_fwd");
  // Causal: each block of rows reads only the K/V tiles its rows see, so about half of K and V.
  const YAML::Node causal = run({"--causal"});
  CHECK(causal["variant"].as<std::string>() == "split-KV");
  CHECK(causal["hbm"]["read_bytes"].as<double>() < 0.6 * split["hbm"]["read_bytes"].as<double>());
}
