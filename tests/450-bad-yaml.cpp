// YAML that yaml-cpp accepts but no config or scenario means, and files too large to read: each is one
// line naming the file, the line and the key or construct, exit 2, nothing on stdout.
#include <doctest/doctest.h>

#include <algorithm>

#include <filesystem>
#include <string>
#include <vector>

#include "src/config/hardware_config.h"
#include "src/config/yaml_map.h"
#include "support/bad_input.h"
#include "support/temp_file.h"
#include "support/toy_config.h"

using iosim::test::BadInput;
using iosim::test::check_bad_inputs;
using iosim::test::TempDir;

namespace {

/// The toy config with its first `from` replaced by `to`.
std::string toy(const std::string& from, const std::string& to) {
  std::string s = iosim::test::kToyConfig;
  const std::size_t at = s.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, from);
  return s.replace(at, from.size(), to);
}

const std::string kScenario = "config: teaching\nproblem:\n  n: 64\n  d: 16\n  causal: false\n";

}  // namespace

/// The line just after the toy config, where the tests append their bad YAML.
std::string after_toy() {
  return std::to_string(std::count(iosim::test::kToyConfig.begin(), iosim::test::kToyConfig.end(), '\n') + 1);
}

TEST_CASE("duplicate keys, a second document, keys that are not names: refused with their line") {
  TempDir dir;
  const auto cfg = [&](const std::string& name, const std::string& text) { return dir.write(name, text); };
  const std::string dup = cfg("dup.yaml", toy("  count: 2\n", "  count: 4\n  count: 400000\n"));
  const std::string dup_top = cfg("dup-top.yaml", iosim::test::kToyConfig + "name: other\n");
  const std::string second = cfg("second.yaml", iosim::test::kToyConfig + "---\nname: other\n");
  const std::string alias = cfg("alias.yaml", toy("arch: sm_00\n", "arch: &a sm_00\n*a : 1\n"));
  const std::string list_key = cfg("list.yaml", toy("arch: sm_00\n", "arch: sm_00\n? [a, b]\n: 1\n"));
  const std::string dup_sc = cfg("dup-sc.yaml", kScenario + "problem:\n  n: 128\n");
  const std::string second_says = "second.yaml:" + after_toy() + ": a second YAML document ('---')";
  const BadInput cases[] = {
      {{"-c", dup, "--n", "64", "--d", "16"}, "dup.yaml:5: duplicate key 'sm.count' (first at line 4)"},
      {{"-c", dup_top, "--n", "64", "--d", "16"}, "duplicate key 'name' (first at line 1)"},
      {{"-c", second, "--n", "64", "--d", "16"}, second_says.c_str()},
      {{"-c", alias, "--n", "64", "--d", "16"}, "alias.yaml:3: an alias (*name) as a key"},
      {{"-c", list_key, "--n", "64", "--d", "16"}, "list.yaml:3: a list as a key"},
      {{"-s", dup_sc}, "duplicate key 'problem'"},
  };
  check_bad_inputs(cases);
}

TEST_CASE("a quoted or !!str-tagged number is a string where a number is expected") {
  TempDir dir;
  const std::string quoted = dir.write("q.yaml", toy("count: 2", "count: \"4\""));
  const std::string tagged = dir.write("t.yaml", toy("count: 2", "count: !!str 4"));
  const std::string single = dir.write("s.yaml", toy("bandwidth_gb_per_s: 100", "bandwidth_gb_per_s: '100'"));
  const std::string sc_n = dir.write("n.yaml", "config: teaching\nproblem:\n  n: \"64\"\n  d: 16\n");
  const std::string sc_bool = dir.write("b.yaml", "config: teaching\nproblem:\n  n: 64\n  d: 16\n  causal: \"true\"\n");
  const std::string sc_tile = dir.write("br.yaml", "config: teaching\nproblem: {n: 64, d: 16}\ntiles: {br: [16, '32']}\n");
  const BadInput cases[] = {
      {{"-c", quoted, "--n", "64", "--d", "16"}, "q.yaml:4: sm.count: expected a positive integer, got '4', a string"},
      {{"-c", tagged, "--n", "64", "--d", "16"}, "t.yaml:4: sm.count: expected a positive integer, got '4', a string"},
      {{"-c", single, "--n", "64", "--d", "16"}, "hbm.bandwidth_gb_per_s: expected a positive number, got '100', a string"},
      {{"-s", sc_n}, "problem.n: expected a positive integer, got '64', a string"},
      {{"-s", sc_bool}, "problem.causal: expected true or false, got 'true', a string"},
      {{"-s", sc_tile}, "tiles.br: expected a positive integer or a list of them, got '32', a string"},
  };
  check_bad_inputs(cases);
}

TEST_CASE("numbers that YAML tags as numbers still load") {
  TempDir dir;
  const std::string tagged = dir.write("ok.yaml", toy("count: 2", "count: !!int 2"));
  const iosim::test::CliResult r = iosim::test::cli({"-c", tagged, "--n", "64", "--d", "16"});
  CAPTURE(r.err);
  CHECK(r.code == 0);
}

TEST_CASE("100,000-deep nesting: refused at the limit, with its line, in flow and block style") {
  TempDir dir;
  const std::string flow = dir.write("flow.yaml", iosim::test::kToyConfig + "deep: " + std::string(100000, '[') +
                                                      std::string(100000, ']') + "\n");
  std::string block = iosim::test::kToyConfig + "deep:\n";
  for (int i = 1; i <= 40; ++i) block += std::string(static_cast<std::size_t>(2 * i), ' ') + "k:\n";
  const std::string blocky = dir.write("block.yaml", block);
  const std::string flow_says = "flow.yaml:" + after_toy() + ": nesting deeper than 32 levels";
  const BadInput cases[] = {
      {{"-c", flow, "--n", "64", "--d", "16"}, flow_says.c_str()},
      {{"-c", blocky, "--n", "64", "--d", "16"}, "nesting deeper than 32 levels"},
  };
  check_bad_inputs(cases);
}

TEST_CASE("a file larger than 1 MiB is refused before it is read") {
  TempDir dir;
  // 100 MB, sparse: written in no time, and parsing it whole once took 3 GB.
  const std::string huge = dir.write("huge.yaml", iosim::test::kToyConfig);
  std::filesystem::resize_file(huge, 100'000'000);
  const std::string scenario = dir.write("huge-scenario.yaml", kScenario);
  std::filesystem::resize_file(scenario, iosim::config::kMaxYamlFileBytes + 1);
  // A config of exactly 1 MiB (the toy config and a long comment) loads.
  const std::string pad(iosim::config::kMaxYamlFileBytes - iosim::test::kToyConfig.size() - 2, 'x');
  const std::string at_limit = dir.write("limit.yaml", iosim::test::kToyConfig + "#" + pad + "\n");
  REQUIRE(std::filesystem::file_size(at_limit) == iosim::config::kMaxYamlFileBytes);
  const BadInput cases[] = {
      {{"-c", huge, "--n", "64", "--d", "16"}, "huge.yaml: the file is larger than 1048576 bytes (1 MiB)"},
      {{"-s", scenario}, "huge-scenario.yaml: the file is larger than 1048576 bytes"},
  };
  check_bad_inputs(cases);
  const iosim::test::CliResult r = iosim::test::cli({"-c", at_limit, "--n", "64", "--d", "16"});
  CAPTURE(r.err);
  CHECK(r.code == 0);
}

TEST_CASE("a key or value with a newline in it is escaped: the error stays one line") {
  TempDir dir;
  const std::string key = dir.write("key.yaml", iosim::test::kToyConfig + "\"bad\\nkey\": 1\n");
  const std::string value = dir.write("value.yaml", toy("count: 2", "count: \"2\\n3\""));
  const std::string longer = dir.write("long.yaml", toy("count: 2", "count: " + std::string(5000, '9') + "x"));
  const std::string sc = dir.write("sc.yaml", "problem:\n  dtype: \"fp\\n16\"\n");
  // A NUL byte makes yaml-cpp's own message end in a line break (found by fuzz/hardware_config).
  const std::string nul = dir.write("nul.yaml", toy("count: 2\n", std::string("count: 2\0\n", 10)));
  const BadInput cases[] = {
      {{"-c", key, "--n", "64", "--d", "16"}, "unknown key 'bad\\nkey'"},
      {{"-c", value, "--n", "64", "--d", "16"}, "sm.count: expected a positive integer, got '2\\n3', a string"},
      {{"-c", longer, "--n", "64", "--d", "16"}, "got '999999999999999999999999999999999999999999999999999999999999…'"},
      {{"-s", sc}, "problem.dtype: 'fp\\n16' is not one of"},
      {{"-c", nul, "--n", "64", "--d", "16"}, "nul.yaml:5: malformed YAML: unknown escape character: \\n"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--dtype", "fp\n16"}, "--dtype must be one of fp32, fp16, bf16, fp8 (got 'fp\\n16')"},
  };
  check_bad_inputs(cases);
  // The loader's own message, not only what the command line prints, is one line.
  try {
    (void)iosim::config::load_hardware(nul);
    FAIL("expected ConfigError");
  } catch (const iosim::config::ConfigError& e) {
    CHECK(std::string(e.what()).find('\n') == std::string::npos);
  }
}

TEST_CASE("an integer key refuses a value tagged as anything but an integer") {
  TempDir dir;
  // 4.0 was refused, !!float 4 (the same number) accepted.
  const std::string float_tag = dir.write("f.yaml", toy("count: 2", "count: !!float 4"));
  const std::string bool_tag = dir.write("b.yaml", toy("count: 2", "count: !!bool 1"));
  const std::string float_list = dir.write("fl.yaml", "config: teaching\nproblem: {n: 64, d: 16}\ntiles: {br: [16, !!float 32]}\n");
  const BadInput cases[] = {
      {{"-c", float_tag, "--n", "64", "--d", "16"}, "f.yaml:4: sm.count: expected a positive integer, got '4' (tagged float)"},
      {{"-c", bool_tag, "--n", "64", "--d", "16"}, "sm.count: expected a positive integer, got '1' (tagged bool)"},
      {{"-s", float_list}, "tiles.br: expected a positive integer or a list of them, got '32' (tagged float)"},
  };
  check_bad_inputs(cases);
  // A number key takes either tag.
  const std::string float_rate = dir.write("rate.yaml", toy("bandwidth_gb_per_s: 100", "bandwidth_gb_per_s: !!int 100"));
  const iosim::test::CliResult r = iosim::test::cli({"-c", float_rate, "--n", "64", "--d", "16"});
  CAPTURE(r.err);
  CHECK(r.code == 0);
}

TEST_CASE("every rate and size of a config lies in a plausible range") {
  TempDir dir;
  const auto cfg = [&](const std::string& name, const std::string& from, const std::string& to) {
    return dir.write(name, toy(from, to));
  };
  // Once accepted: a bandwidth of 1e-300 GB/s printed a 300-digit time.
  const std::string slow = cfg("slow.yaml", "bandwidth_gb_per_s: 100", "bandwidth_gb_per_s: 1e-300");
  const std::string fast = cfg("fast.yaml", "bandwidth_gb_per_s: 100", "bandwidth_gb_per_s: 1e300");
  const std::string clock = cfg("clock.yaml", "sm_mhz: 1000", "sm_mhz: 1e-9");
  const std::string tflops = cfg("tf.yaml", "tensor_fp16_tflops: 1", "tensor_fp16_tflops: 1e12");
  const std::string lat = cfg("lat.yaml", "dram_latency: 600", "dram_latency: 1e-200");
  const std::string launch = cfg("launch.yaml", "launch_overhead_us: 4", "launch_overhead_us: 1e100");
  const std::string regs = cfg("regs.yaml", "max_registers_per_thread: 255", "max_registers_per_thread: 1");
  const std::string measured = dir.write("m.yaml", iosim::test::kToyConfig + "measured:\n  hbm_gb_per_s: 1e-30\n");
  const BadInput cases[] = {
      {{"-c", slow, "--n", "64", "--d", "16"}, "slow.yaml:22: hbm.bandwidth_gb_per_s: at least 1 GB/s, got 1e-300"},
      {{"-c", fast, "--n", "64", "--d", "16"}, "hbm.bandwidth_gb_per_s: at most 1000000 GB/s, got 1e+300"},
      {{"-c", clock, "--n", "64", "--d", "16"}, "clocks.sm_mhz: at least 1 MHz"},
      {{"-c", tflops, "--n", "64", "--d", "16"}, "peak.tensor_fp16_tflops: at most 1000000 TFLOP/s"},
      {{"-c", lat, "--n", "64", "--d", "16"}, "pipeline.dram_latency: at least 0.1 cycles"},
      {{"-c", launch, "--n", "64", "--d", "16"}, "launch_overhead_us: at most 1000000 µs"},
      {{"-c", regs, "--n", "64", "--d", "16"}, "sm.max_registers_per_thread: at least 16 registers, got 1"},
      {{"-c", measured, "--n", "64", "--d", "16"}, "measured.hbm_gb_per_s: at least 1 GB/s"},
  };
  check_bad_inputs(cases);
}

TEST_CASE("a name with control characters is printed escaped, in the report as in errors") {
  TempDir dir;
  // An escape sequence (ESC [31m, red) and a newline in the config's name: once printed raw.
  const std::string ansi = dir.write("ansi.yaml", toy("name: toy", "name: \"toy\\x1b[31m\\nred\""));
  for (const char* format : {"table", "csv"}) {
    CAPTURE(format);
    const iosim::test::CliResult r =
        iosim::test::cli({"-c", ansi, "--n", "64", "--d", "16", "--schedule", "naive", "-f", format});
    CAPTURE(r.err);
    REQUIRE(r.code == 0);
    CHECK(r.out.find('\x1b') == std::string::npos);
    CHECK(r.out.find("toy\\x1b[31m\\nred") != std::string::npos);
  }
  for (const iosim::test::CliResult& r : {iosim::test::cli({"tiles", "-c", ansi, "--d", "16", "--n", "64"}),
                                           iosim::test::cli({"bounds", "-c", ansi, "--d", "16"})}) {
    CAPTURE(r.err);
    CHECK(r.out.find('\x1b') == std::string::npos);
    CHECK(r.err.find('\x1b') == std::string::npos);
  }
  // A file name with ESC in an error: escaped too.
  const BadInput cases[] = {{{"-c", "no\x1b[2Jsuch"}, "config 'no\\x1b[2Jsuch' not found"}};
  check_bad_inputs(cases);
}
