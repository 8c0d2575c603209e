// The command line of the GPU model: --predict, iosim tiles, and the GPU commands without a GPU.
#include <doctest/doctest.h>

#include "cuda/backend.h"
#include "support/bad_input.h"
#include "support/cli_run.h"

using namespace iosim::test;

TEST_CASE("--predict adds the GPU model's table and JSON, named after the counters") {
  const CliResult t = cli({"-c", "h200", "--n", "2048", "--d", "64", "--heads", "4", "--schedule", "flash2", "-p"});
  REQUIRE(t.code == 0);
  CHECK(t.out.find("predicted on NVIDIA H200") != std::string::npos);
  CHECK(t.out.find("flash2_fwd") != std::string::npos);
  CHECK(t.out.find("bound by") != std::string::npos);
  const CliResult j = cli({"-c", "h200", "--n", "2048", "--d", "64", "--heads", "4", "--schedule", "flash2,flash1",
                           "--predict", "-f", "json"});
  REQUIRE(j.code == 0);
  const YAML::Node s = parse_json(j.out)["runs"][0]["schedules"][0];
  const YAML::Node cold = s["predicted"]["cold"];
  CHECK(cold["kernels"][0]["name"].as<std::string>() == "flash2_fwd");
  CHECK(cold["lts__t_sectors_srcunit_tex_op_read"].as<std::uint64_t>() * 32 ==
        s["hbm"]["read_bytes"].as<std::uint64_t>());
  CHECK(cold["dram__bytes_read"].as<std::uint64_t>() == 3ull * 4 * 2048 * 64 * 2);
  CHECK(cold["time_ms"].as<double>() > 0);
  CHECK(s["predicted"]["warm"]["dram__bytes_read"].as<std::uint64_t>() == 0);
  const CliResult c = cli({"-c", "h200", "--n", "2048", "--d", "64", "--schedule", "flash2", "-p", "-f", "csv"});
  REQUIRE(c.code == 0);
  CHECK(c.out.find("pred_dram_read_bytes") != std::string::npos);
}

TEST_CASE("--l2-flush-kernels empties the L2 before each kernel of a pass, as Nsight Compute profiles it") {
  // flash2's backward at n = 1024, one head: everything fits the L2, so with the L2 kept the convert kernel
  // finds the fp32 dQaccum there and reads nothing from DRAM; flushed, it reads all of it.
  const auto convert_reads = [](bool flush) {
    std::vector<std::string> args = {"-c", "h200", "--n", "1024", "--d", "64", "--schedule", "flash2",
                                     "--pass", "bwd", "-p", "-f", "json"};
    if (flush) args.push_back("--l2-flush-kernels");
    const CliResult r = cli(args);
    REQUIRE(r.code == 0);
    const YAML::Node cold = parse_json(r.out)["runs"][0]["schedules"][0]["predicted"]["cold"];
    CHECK(static_cast<bool>(cold["l2_flushed_each_kernel"]) == flush);
    const YAML::Node last = cold["kernels"][cold["kernels"].size() - 1];
    CHECK(last["name"].as<std::string>() == "flash2_bwd_convert");
    return last["dram__bytes_read"].as<std::uint64_t>();
  };
  CHECK(convert_reads(false) == 0);
  CHECK(convert_reads(true) == 1024ull * 64 * 4);
}

TEST_CASE("--warps, --stages and --launch-order reach the model") {
  const CliResult r = cli({"-c", "h200", "--n", "2048", "--d", "64", "--schedule", "flash2", "--warps", "8",
                           "--stages", "2", "--launch-order", "heads", "-p", "-f", "json"});
  REQUIRE(r.code == 0);
  const YAML::Node k = parse_json(r.out)["runs"][0]["schedules"][0]["predicted"]["cold"]["kernels"][0];
  CHECK(k["threads"].as<int>() == 256);
  CHECK(k["stages"].as<int>() == 2);
}

TEST_CASE("iosim tiles ranks, rejects with reasons, and lists all in CSV") {
  const CliResult r = cli({"tiles", "-c", "h200", "--n", "4096", "--d", "64", "--top", "3"});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("200 candidates") != std::string::npos);
  CHECK(r.out.find("rejected") != std::string::npos);
  CHECK(r.out.find("registers:") != std::string::npos);
  const CliResult c = cli({"tiles", "-c", "h200", "--n", "4096", "--d", "64", "-f", "csv"});
  REQUIRE(c.code == 0);
  CHECK(lines(c.out) == 201);
  const CliResult j = cli({"tiles", "-c", "a100", "--n", "2048", "--d", "128", "--pass", "bwd", "-f", "json"});
  REQUIRE(j.code == 0);
  CHECK(parse_json(j.out)["candidates"].size() == 200);
}

TEST_CASE("iosim tiles --pass fwdbwd ranks by the sum of the forward's and the backward's time") {
  const std::vector<std::string> args{"tiles", "-c", "h200", "--n", "512", "--d", "64", "--top", "1000", "-f", "json"};
  const auto search = [&](const char* pass) {
    std::vector<std::string> a = args;
    a.insert(a.end(), {"--pass", pass});
    const CliResult r = cli(a);
    REQUIRE(r.code == 0);
    return parse_json(r.out);
  };
  const YAML::Node both = search("fwdbwd"), fwd = search("fwd"), bwd = search("bwd");
  CHECK(both["pass"].as<std::string>() == "fwdbwd");
  const auto time_of = [](const YAML::Node& out, const YAML::Node& c) {
    for (const YAML::Node& o : out["candidates"]) {
      if (o["br"].as<int>() == c["br"].as<int>() && o["bc"].as<int>() == c["bc"].as<int>() &&
          o["warps"].as<int>() == c["warps"].as<int>() && o["stages"].as<int>() == c["stages"].as<int>()) {
        return o["feasible"].as<bool>() ? o["time_ms"].as<double>() : -1.0;
      }
    }
    return -2.0;
  };
  int feasible = 0;
  double last = 0;
  for (const YAML::Node& c : both["candidates"]) {
    if (!c["feasible"].as<bool>()) continue;
    ++feasible;
    const double t = c["time_ms"].as<double>();
    CHECK(t == doctest::Approx(time_of(fwd, c) + time_of(bwd, c)).epsilon(1e-9));
    CHECK(t >= last);
    last = t;
  }
  CHECK(feasible > 0);
}

TEST_CASE("bad input to the GPU model and the GPU commands") {
  const BadInput cases[] = {
      {{"-c", "h200", "--n", "64", "--d", "64", "-p", "--launch-order", "random"}, "--launch-order must be x or heads"},
      {{"-c", "h200", "--n", "64", "--d", "64", "-p", "--l2-policy", "plru"}, "--l2-policy must be lru, fifo or random"},
      {{"-c", "h200", "--n", "64", "--d", "64", "--warps", "64"}, "--warps must be at most 32"},
      {{"tiles", "-c", "h200", "--n", "64", "--d", "64", "--schedule", "naive"}, "naive has no tiles to search"},
      {{"measure", "-c", "h200", "--n", "64", "--d", "64"}, "give one --schedule"},
      {{"validate"}, "--config is required"},
      {{"calibrate", "-c", "nope"}, "config 'nope' not found"},
      {{"validate", "-c", "h200", "-s", "dtiled"},
       "--schedule must be naive, flash1, flash2, flashdecode, flashdecode-heads or flash3, not dtiled"},
      {{"validate", "-c", "h200", "--pass", "both"}, "--pass must be fwd or bwd, not both"},
      {{"validate", "-c", "h200", "--tile", "64"}, "--tile must be B_rxB_c, like 64x128, not 64"},
      {{"validate", "-c", "h200", "--tile", "0x64"}, "--tile must be B_rxB_c, like 64x128, not 0x64"},
      {{"validate", "-c", "h200", "--tile", "64xab"}, "--tile must be B_rxB_c, like 64x128, not 64xab"},
      {{"validate", "-c", "h200", "--shape", "1,16,1024"},
       "--shape must be B,H,N,D (four positive integers), like 1,16,8192,64, not 1,16,1024"},
      {{"validate", "-c", "h200", "--shape", "1,0,1024,64"},
       "--shape must be B,H,N,D (four positive integers), like 1,16,8192,64, not 1,0,1024,64"},
      {{"validate", "-c", "h200", "--shape", "1,16,1024,64,"},
       "--shape must be B,H,N,D (four positive integers), like 1,16,8192,64, not 1,16,1024,64,"},
      {{"validate", "-c", "h200", "--shape", "1,16,1024,64", "--warps", "0"}, "--warps must be positive, not 0"},
      {{"validate", "-c", "h200", "--stages", "0"}, "--stages must be positive, not 0"},
      {{"validate", "-c", "h200", "--masks", "--quick"}, "--masks takes neither --quick nor --shape"},
      {{"validate", "-c", "h200", "--masks", "--shape", "1,16,1024,64"}, "--masks takes neither --quick nor --shape"},
  };
  check_bad_inputs(cases);
}

TEST_CASE("measure, validate and calibrate without a GPU exit 2 and say why") {
  if (iosim::gpu::available(nullptr)) {
    MESSAGE("a GPU is present: the GPU tests (tests/gpu) cover measure");
    return;
  }
  for (std::initializer_list<std::string> args :
       {std::initializer_list<std::string>{"measure", "-c", "h200", "--n", "1024", "--d", "64", "--schedule", "flash2"},
        std::initializer_list<std::string>{"validate", "-c", "h200", "--quick"},
        std::initializer_list<std::string>{"validate", "-c", "h200", "--masks"},
        std::initializer_list<std::string>{"measure", "-c", "h200", "--n", "1024", "--d", "64", "--schedule", "flash2",
                                           "--causal", "--heads", "4", "--kv-heads", "2"},
        std::initializer_list<std::string>{"validate", "-c", "h200", "--shape", "1,16,1024,64", "--no-counters",
                                           "--no-predict", "--warps", "4", "--stages", "2"},
        std::initializer_list<std::string>{"calibrate"}, std::initializer_list<std::string>{"calibrate", "-c", "h200"}}) {
    const CliResult r = cli(args);
    CAPTURE(r.err);
    CHECK(r.code == 2);
    CHECK(r.err.find("needs a CUDA GPU") != std::string::npos);
  }
}

TEST_CASE("--predict over a paged cache in random order runs and reports") {
  const CliResult j = cli({"-c", "h200", "--n", "1", "--n-kv", "8192", "--d", "128", "--heads", "8", "--kv-heads",
                           "2", "--schedule", "flashdecode", "--page-size", "16", "--page-order", "random", "-p",
                           "-f", "json"});
  CAPTURE(j.err);
  REQUIRE(j.code == 0);
  const YAML::Node s = parse_json(j.out)["runs"][0]["schedules"][0];
  const YAML::Node cold = s["predicted"]["cold"];
  CHECK(cold["time_ms"].as<double>() > 0);
  // K and V (2 K/V heads × 8192 × 128 fp16 each) and the table (2 × 512 int32) reach DRAM once.
  CHECK(cold["dram__bytes_read"].as<std::uint64_t>() >= 2ull * 2 * 8192 * 128 * 2 + 2 * 512 * 4);
}
