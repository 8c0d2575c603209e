// The command line end to end, in-process: outputs, exit codes, and one-line errors for bad input.
#include <doctest/doctest.h>

#include "support/bad_input.h"
#include "support/cli_run.h"
#include "support/toy_config.h"

using namespace iosim::test;

TEST_CASE("the first command prints a table with every schedule") {
  const CliResult r = cli({"--config", "a100.yaml", "--n", "8192", "--d", "64"});
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  for (const char* s : {"naive", "flash1", "flash2", "HBM read", "÷ upper", "÷ lower", "M = 83,456 elements", "S "}) {
    CHECK_MESSAGE(r.out.find(s) != std::string::npos, s);
  }
  // naive moves 541.1 MB, flash1 88.41 MB: the naive ÷ flash1 ratio is 6.12×.
  CHECK(r.out.find("6.12×") != std::string::npos);
}

TEST_CASE("tiny tiles and odd warp counts predict (registers are never priced at zero)") {
  for (const char* w : {"4", "5"}) {
    const CliResult r = cli({"-c", "a100", "--n", "64", "--d", "16", "--predict", "--warps", w, "--stages", "2"});
    CAPTURE(w);
    CHECK(r.code == 0);
    CHECK(r.err.empty());
    CHECK(r.out.find("flash1") != std::string::npos);
  }
}

TEST_CASE("--format json is one object with the documented fields") {
  const CliResult r = cli({"-c", "h200", "--n", "1000", "--d", "128", "--batch", "2", "--heads", "4", "-f", "json"});
  REQUIRE(r.code == 0);
  const YAML::Node j = parse_json(r.out);
  CHECK(j["schema_version"].as<int>() == 1);
  CHECK(j["config"]["name"].as<std::string>() == "NVIDIA H200");
  const YAML::Node run = j["runs"][0];
  CHECK(run["problem"]["n"].as<std::uint64_t>() == 1000);
  REQUIRE(run["schedules"].size() == 3);
  for (const YAML::Node& s : run["schedules"]) {
    CHECK(s["name"].IsScalar());
    CHECK(s["tile"]["br"].as<std::uint64_t>() > 0);
    for (const char* k : {"read_bytes", "write_bytes", "read_elements", "write_elements"}) {
      CHECK(s["hbm"][k].as<std::uint64_t>() > 0);
    }
    CHECK(s["tensors"]["Q"]["read_elements"].as<std::uint64_t>() > 0);
    CHECK(s["sram_peak_bytes"].as<std::uint64_t>() <= s["sram_limit_bytes"].as<std::uint64_t>());
    CHECK(s["flops"]["matmul"].as<std::uint64_t>() == 2ull * 4 * 4 * 1000 * 1000 * 128);
    CHECK(s["bound"]["formula"].IsScalar());
    CHECK(s["bound"]["ratio"].as<double>() > 0);
  }
  // Per-tensor reads sum to the total.
  const YAML::Node f2 = run["schedules"][2];
  std::uint64_t sum = 0;
  for (const auto& kv : f2["tensors"]) sum += kv.second["read_bytes"].as<std::uint64_t>();
  CHECK(sum == f2["hbm"]["read_bytes"].as<std::uint64_t>());
}

TEST_CASE("--format csv: a header and one row per schedule and problem; lists sweep") {
  const CliResult r = cli({"-c", "a100", "--n", "1024,2048,4096", "--d", "64,128", "--schedule", "flash2", "-f", "csv"});
  REQUIRE(r.code == 0);
  CHECK(lines(r.out) == 1 + 6);
  CHECK(r.out.rfind("config,batch,heads,kv_heads,n,n_kv,d,dtype,causal,schedule,pass,br,bc,hbm_read_bytes", 0) == 0);
  CHECK(r.out.find(",4096,4096,128,fp16,false,flash2,fwd,64,64,") != std::string::npos);  // the kernel menu's tile
}

TEST_CASE("a scenario supplies the problem; flags override it") {
  TempDir dir;
  const std::string s = dir.write("s.yaml", "config: a100.yaml\nproblem: {batch: 2, heads: 2, n: 512, d: 64}\n"
                                            "schedules: [flash2]\n");
  const CliResult a = cli({"--scenario", s, "-f", "csv"});
  REQUIRE(a.code == 0);
  CHECK(lines(a.out) == 2);
  CHECK(a.out.find(",2,2,2,512,512,64,fp16,false,flash2,") != std::string::npos);
  const CliResult b = cli({"--scenario", s, "--n", "256", "--dtype", "bf16", "--causal", "-f", "csv"});
  REQUIRE(b.code == 0);
  CHECK(b.out.find(",2,2,2,256,256,64,bf16,true,flash2,") != std::string::npos);
}

TEST_CASE("--pass fwdbwd: both passes and their sum") {
  const CliResult r = cli({"-c", "a100", "--n", "1024", "--d", "64", "--pass", "fwdbwd", "-f", "json"});
  REQUIRE(r.code == 0);
  const YAML::Node run = parse_json(r.out)["runs"][0];
  CHECK(run["schedules"].size() == 6);
  REQUIRE(run["totals"].size() == 3);
  for (const YAML::Node& t : run["totals"]) {
    std::uint64_t sum = 0;
    for (const YAML::Node& s : run["schedules"]) {
      if (s["name"].as<std::string>() == t["name"].as<std::string>()) sum += s["hbm"]["read_bytes"].as<std::uint64_t>();
    }
    CHECK(t["hbm"]["read_bytes"].as<std::uint64_t>() == sum);
  }
  for (const YAML::Node& s : run["schedules"]) CHECK(s["lower_bound"]["ratio"].as<double>() >= 1.0);
  const CliResult table = cli({"-c", "a100", "--n", "1024", "--d", "64", "--pass", "fwdbwd"});
  CHECK(table.out.find("fwd+bwd") != std::string::npos);
}

TEST_CASE("decoding with grouped-query attention, split-KV") {
  const CliResult r = cli({"-c", "h200", "--n", "1", "--n-kv", "32768", "--d", "128", "--heads", "32", "--kv-heads", "8",
                           "--schedule", "flash2,flashdecode", "--splits", "4", "-f", "json"});
  REQUIRE(r.code == 0);
  const YAML::Node s = parse_json(r.out)["runs"][0]["schedules"];
  CHECK(s[1]["tensors"]["K"]["read_elements"].as<std::uint64_t>() == s[1]["tensors"]["K"]["size_elements"].as<std::uint64_t>());
  CHECK(s[0]["tensors"]["K"]["read_elements"].as<std::uint64_t>() == 4 * s[1]["tensors"]["K"]["size_elements"].as<std::uint64_t>());
}

TEST_CASE("--bc lists sweep the tile") {
  const CliResult r = cli({"-c", "a100", "--n", "1024", "--d", "64", "--br", "16", "--bc", "64,128,256,512", "--schedule",
                           "flash1", "-f", "csv"});
  REQUIRE(r.code == 0);
  CHECK(lines(r.out) == 5);
  CHECK(r.out.find("flash1,fwd,16,512,") != std::string::npos);
}

TEST_CASE("--br/--bc apply to the tiled schedules") {
  const CliResult r = cli({"-c", "a100", "--n", "4096", "--d", "64", "--br", "64", "--bc", "32", "--schedule",
                           "flash1,flash2", "-f", "csv"});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("flash1,fwd,64,32,") != std::string::npos);
  CHECK(r.out.find("flash2,fwd,64,32,") != std::string::npos);
}

TEST_CASE("bad input: one line on stderr and exit code 2") {
  const BadInput cases[] = {
      {{"--config", "a10.yaml", "--n", "64", "--d", "64"}, "config 'a10.yaml' not found"},
      {{"--n", "64", "--d", "64"}, "no hardware config"},
      {{"-c", "a100", "--d", "64"}, "sequence length is missing"},
      {{"-c", "a100", "--n", "64"}, "head dimension is missing"},
      {{"-c", "a100", "--n", "0", "--d", "64"}, "--n must be a positive integer (got 0)"},
      {{"-c", "a100", "--n", "-5", "--d", "64"}, "--n must be a positive integer (got -5)"},
      {{"-c", "a100", "--n", "64", "--d", "0"}, "--d must be a positive integer"},
      {{"-c", "a100", "--n", "abc", "--d", "64"}, "--n"},
      {{"-c", "a100", "--n", "64", "--d", "64", "--dtype", "fp64"}, "--dtype must be one of"},
      {{"-c", "a100", "--n", "64", "--d", "64", "--schedule", "flash9"}, "unknown schedule 'flash9'"},
      {{"-c", "a100", "--n", "64", "--d", "64", "--format", "xml"}, "--format"},
      {{"-c", "a100", "--n", "64", "--d", "64", "--frobnicate"}, "frobnicate"},
      {{"-c", "a100", "--n", "8192", "--d", "128", "--br", "256", "--bc", "256", "--schedule", "flash2"},
       "does not fit: needs 192.0 KiB"},
      {{"-c", "a100", "--n", "4294967296", "--d", "4294967296", "--batch", "1000"}, "overflow 64 bits"},
      {{"-c", "a100", "--n", "64", "--d", "64", "--pass", "both"}, "--pass must be fwd, bwd or fwdbwd"},
      {{"-c", "a100", "--n", "64", "--d", "64", "--heads", "6", "--kv-heads", "4"}, "kv_heads (4) must divide heads (6)"},
      {{"-c", "a100", "--n", "64", "--d", "64", "--schedule", "dtiled", "--pass", "bwd"}, "dtiled has no backward pass"},
      {{"-c", "a100", "--n", "64", "--d", "64", "--splits", "0"}, "--splits must be a positive integer"},
  };
  check_bad_inputs(cases);
}

TEST_CASE("iosim bounds: the slopes, exit 0 when within tolerance") {
  const CliResult r = cli({"bounds", "--config", "a100.yaml"});
  CHECK(r.code == 0);
  CHECK(r.out.find("expected") != std::string::npos);
  CHECK(r.out.find("OUT of") == std::string::npos);
  const CliResult j = cli({"bounds", "-c", "h100", "--d", "128", "-f", "json"});
  REQUIRE(j.code == 0);
  const YAML::Node doc = parse_json(j.out);
  CHECK(doc["checks"].size() == 6);
  CHECK(doc["crossover"]["m"].as<double>() > 0);
  for (const YAML::Node& c : doc["checks"]) CHECK(c["within"].as<bool>());
}

TEST_CASE("--help and --version exit 0") {
  CHECK(cli({"--help"}).code == 0);
  CHECK(cli({"--version"}).code == 0);
  CHECK(cli({"bounds", "--help"}).code == 0);
}

TEST_CASE("iosim bounds exits 1 when a slope leaves its tolerance") {
  // Outside Theorem 2's range (M > N·d): with 1 GiB of SRAM one K/V tile holds all of K and V, T_c = 1,
  // and flash1's count grows as n, not n².
  TempDir dir;
  std::string text = kToyConfig;
  for (const char* key : {"sram_per_sm_bytes: 2048", "sram_per_block_bytes: 1024"}) {
    const std::string k(key);
    text.replace(text.find(k), k.size(), k.substr(0, k.find(':')) + ": 1073741824");
  }
  const CliResult r = cli({"bounds", "--config", dir.write("huge.yaml", text)});
  CHECK(r.code == 1);
  CHECK(r.out.find("OUT of ±0.05") != std::string::npos);
}
