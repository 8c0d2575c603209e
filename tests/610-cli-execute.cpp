// `iosim … --execute fp32|fp64 [--bug …] [--seed …] [--input-scale …]` end to end, in-process: the
// table lines, the JSON "execution" object (docs/json-schema.md), and one-line errors for bad use.
#include <doctest/doctest.h>

#include "support/bad_input.h"
#include "support/cli_run.h"

using namespace iosim::test;

TEST_CASE("--execute adds a line per schedule to the table") {
  const CliResult r = cli({"-c", "a100", "--n", "500", "--d", "64", "--execute", "fp32"});
  REQUIRE(r.code == 0);
  CHECK(r.err.empty());
  for (const char* s : {"naive fwd: executed in fp32 on head 0 (seed 1): O rel error ",
                        "flash1 fwd: executed in fp32 on head 0 (seed 1): O rel error ",
                        "flash2 fwd: executed in fp32 on head 0 (seed 1): O rel error ", "running max grew"}) {
    CHECK_MESSAGE(r.out.find(s) != std::string::npos, s);
  }
  const CliResult plain = cli({"-c", "a100", "--n", "500", "--d", "64"});
  CHECK(plain.out.find("executed") == std::string::npos);
}

TEST_CASE("--bug: the bugged errors beside the correct ones") {
  const CliResult r = cli({"-c", "a100", "--n", "1024", "--d", "64", "--br", "64", "--bc", "64", "--schedule",
                           "flash1,flash2", "--execute", "fp32", "--bug", "no-rescale", "--seed", "3"});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("flash2 fwd: executed in fp32 on head 0 (seed 3): correct: O rel error ") != std::string::npos);
  CHECK(r.out.find(" | bug no-rescale: O rel error ") != std::string::npos);
}

TEST_CASE("--format json: the execution object of every schedule") {
  const CliResult r = cli({"-c", "a100", "--n", "300", "--d", "64", "--pass", "fwdbwd", "--schedule", "flash1,flash2",
                           "--execute", "fp64", "--bug", "wrong-l", "--br", "32", "--bc", "32", "-f", "json"});
  REQUIRE(r.code == 0);
  const YAML::Node ss = parse_json(r.out)["runs"][0]["schedules"];
  REQUIRE(ss.size() == 4);
  for (const YAML::Node& s : ss) {
    const YAML::Node e = s["execution"];
    REQUIRE(e.IsMap());
    CHECK(e["precision"].as<std::string>() == "fp64");
    CHECK(e["seed"].as<std::uint64_t>() == 1);
    CHECK(e["input_scale"].as<double>() == 1.0);
    CHECK(e["bug"].as<std::string>() == "wrong-l");
    CHECK(e["heads_executed"].as<std::uint64_t>() == 1);
    CHECK(e["max_grew"].as<std::uint64_t>() > 0);
    const bool fwd = s["pass"].as<std::string>() == "fwd";
    REQUIRE(e["outputs"].size() == (fwd ? 1u : 3u));
    REQUIRE(e["correct"].size() == e["outputs"].size());
    CHECK(e["outputs"][0]["tensor"].as<std::string>() == (fwd ? "O" : "dQ"));
    for (std::size_t i = 0; i < e["outputs"].size(); ++i) {
      CHECK(e["outputs"][i]["tensor"].as<std::string>() == e["correct"][i]["tensor"].as<std::string>());
      CHECK(e["correct"][i]["rel_error"].as<double>() < 1e-12);
      CHECK(e["correct"][i]["max_abs_error"].as<double>() < 1e-12);
      CHECK(e["correct"][i]["nonfinite"].as<std::uint64_t>() == 0);
    }
    CHECK(e["outputs"][0]["rel_error"].as<double>() > 1e-3);
  }
}

TEST_CASE("JSON without a bug: no correct list, and no running max for naive") {
  const CliResult r = cli({"-c", "a100", "--n", "256", "--d", "32", "--execute", "fp32", "-f", "json"});
  REQUIRE(r.code == 0);
  const YAML::Node ss = parse_json(r.out)["runs"][0]["schedules"];
  REQUIRE(ss.size() == 3);
  for (const YAML::Node& s : ss) {
    const YAML::Node e = s["execution"];
    CHECK(e["bug"].as<std::string>() == "none");
    CHECK(!e["correct"]);
    CHECK(static_cast<bool>(e["max_grew"]) == (s["name"].as<std::string>() != "naive"));
    CHECK(e["outputs"][0]["rel_error"].as<double>() < 1e-5);
  }
  const CliResult plain = cli({"-c", "a100", "--n", "256", "--d", "32", "-f", "json"});
  CHECK(!parse_json(plain.out)["runs"][0]["schedules"][0]["execution"]);
}

TEST_CASE("--bug no-max with --input-scale 10 overflows fp32: non-finite outputs, errors null") {
  const CliResult r = cli({"-c", "a100", "--n", "256", "--d", "64", "--schedule", "flash2", "--execute", "fp32",
                           "--bug", "no-max", "--input-scale", "10", "-f", "json"});
  REQUIRE(r.code == 0);
  const YAML::Node e = parse_json(r.out)["runs"][0]["schedules"][0]["execution"];
  CHECK(e["input_scale"].as<double>() == 10.0);
  CHECK(e["outputs"][0]["nonfinite"].as<std::uint64_t>() > 0);
  CHECK(e["outputs"][0]["rel_error"].IsNull());
  CHECK(e["correct"][0]["nonfinite"].as<std::uint64_t>() == 0);
  const CliResult t = cli({"-c", "a100", "--n", "256", "--d", "64", "--schedule", "flash2", "--execute", "fp32",
                           "--bug", "no-max", "--input-scale", "10"});
  CHECK(t.out.find("(seed 1, Q and K × 10)") != std::string::npos);
  CHECK(t.out.find("| bug no-max: O non-finite (") != std::string::npos);
}

TEST_CASE("--seed draws other inputs") {
  const auto rel = [](const char* seed) {
    const CliResult r = cli({"-c", "a100", "--n", "128", "--d", "32", "--schedule", "flash2", "--execute", "fp32",
                             "--seed", seed, "-f", "json"});
    return parse_json(r.out)["runs"][0]["schedules"][0]["execution"]["outputs"][0]["rel_error"].as<double>();
  };
  CHECK(rel("5") == rel("5"));
  CHECK(rel("5") != rel("6"));
}

TEST_CASE("bad use of --execute: one line on stderr and exit code 2") {
  const BadInput cases[] = {
      {{"-c", "a100", "--n", "8192", "--d", "64", "--execute", "fp32"}, "n and n_kv of at most 4096"},
      {{"-c", "a100", "--n", "64", "--n-kv", "5000", "--d", "64", "--execute", "fp32"}, "at most 4096"},
      {{"-c", "a100", "--n", "64", "--d", "64", "--execute", "fp16"}, "--execute must be fp32 or fp64 (got 'fp16')"},
      {{"-c", "a100", "--n", "64", "--d", "64", "--bug", "no-max"}, "--bug needs --execute"},
      {{"-c", "a100", "--n", "64", "--d", "64", "--seed", "3"}, "--seed needs --execute"},
      {{"-c", "a100", "--n", "64", "--d", "64", "--input-scale", "3"}, "--input-scale needs --execute"},
      {{"-c", "a100", "--n", "64", "--d", "64", "--execute", "fp32", "--bug", "no-softmax"},
       "--bug must be no-rescale"},
      {{"-c", "a100", "--n", "64", "--d", "64", "--execute", "fp32", "--bug", "no-rescale"}, "naive has none"},
      {{"-c", "a100", "--n", "64", "--d", "64", "--execute", "fp32", "--causal"}, "causal"},
      {{"-c", "a100", "--n", "64", "--d", "64", "--heads", "4", "--kv-heads", "2", "--execute", "fp32"},
       "grouped-query"},
      {{"-c", "a100", "--n", "1", "--n-kv", "64", "--d", "64", "--schedule", "flashdecode", "--execute", "fp32"},
       "not flashdecode"},
      {{"-c", "a100", "--n", "64", "--d", "64", "--execute", "fp32", "--input-scale", "0"},
       "--input-scale must be a positive"},
      {{"-c", "a100", "--n", "64", "--d", "64", "--execute", "fp32", "--input-scale", "abc"}, "--input-scale"},
      {{"-c", "a100", "--n", "64", "--d", "64", "--execute"}, "--execute"},
  };
  check_bad_inputs(cases);
}
