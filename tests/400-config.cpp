// Hardware configs and scenarios: the shipped files load, and every kind of bad file is one clear line.
#include <doctest/doctest.h>


#include "src/config/hardware_config.h"
#include "src/config/scenario.h"
#include "src/config/search_path.h"
#include "src/config/yaml_map.h"
#include "support/temp_file.h"
#include "support/config_errors.h"
#include "support/toy_config.h"

using namespace iosim;
using namespace iosim::config;
using iosim::test::error_of;
using iosim::test::replaced;
using iosim::test::TempDir;

TEST_CASE("every shipped config loads and is self-consistent") {
  for (const char* name : {"a100.yaml", "a100-80gb.yaml", "h100.yaml", "h200.yaml", "teaching.yaml"}) {
    CAPTURE(name);
    const HardwareSpec hw = load_hardware(std::string(IOSIM_SOURCE_DIR) + "/configs/" + name);
    CHECK(!hw.name.empty());
    CHECK(hw.sm.count > 0);
    CHECK(hw.sm.sram_per_block <= hw.sm.sram_per_sm);
    CHECK(hw.l2.line_bytes == 128);
    CHECK(hw.l2.sector_bytes == 32);
    CHECK(hw.hbm.bandwidth_gb_per_s > 0);
  }
  const HardwareSpec h200 = load_hardware(std::string(IOSIM_SOURCE_DIR) + "/configs/h200.yaml");
  CHECK(h200.l2.capacity == Bytes(62914560));
  CHECK(h200.sm.sram_per_block == Bytes(232448));
}

TEST_CASE("a valid config round-trips into the struct") {
  TempDir dir;
  const HardwareSpec hw = load_hardware(dir.write("toy.yaml", iosim::test::kToyConfig));
  CHECK(hw.name == "toy");
  CHECK(hw.sm.sram_per_block == Bytes(1024));
  CHECK(hw.peak.fp32_tflops == doctest::Approx(0.5));
  CHECK(hw.peak.tensor_fp8_tflops == 0);
}

TEST_CASE("measured ceilings: optional, any subset, checked like the rest") {
  TempDir dir;
  const HardwareSpec none = load_hardware(dir.write("a.yaml", iosim::test::kToyConfig));
  CHECK(none.measured.hbm_gb_per_s == 0);
  CHECK(none.measured.tensor_fp16_tflops == 0);
  const HardwareSpec some = load_hardware(
      dir.write("b.yaml", std::string(iosim::test::kToyConfig) + "measured:\n  hbm_gb_per_s: 80\n  exp2_g_per_s: 12.5\n"));
  CHECK(some.measured.hbm_gb_per_s == doctest::Approx(80));
  CHECK(some.measured.exp2_g_per_s == doctest::Approx(12.5));
  CHECK(some.measured.l2_gb_per_s == 0);
  const std::string bad =
      error_of(dir.write("c.yaml", std::string(iosim::test::kToyConfig) + "measured:\n  hbm_gbps: 80\n"));
  CHECK(bad.find("unknown key 'measured.hbm_gbps'") != std::string::npos);
  CHECK(bad.find("did you mean 'measured.hbm_gb_per_s'") != std::string::npos);
  const std::string neg =
      error_of(dir.write("d.yaml", std::string(iosim::test::kToyConfig) + "measured:\n  l2_gb_per_s: 0\n"));
  CHECK(neg.find("measured.l2_gb_per_s: expected a positive number") != std::string::npos);
  // The L2's reduction rate (iosim calibrate's RED microbenchmark): read, and checked the same way.
  const HardwareSpec red = load_hardware(
      dir.write("e.yaml", std::string(iosim::test::kToyConfig) + "measured:\n  l2_red_gb_per_s: 2573\n"));
  CHECK(red.measured.l2_red_gb_per_s == doctest::Approx(2573));
  const std::string bad_red =
      error_of(dir.write("f.yaml", std::string(iosim::test::kToyConfig) + "measured:\n  l2_red_gb_per_s: -1\n"));
  CHECK(bad_red.find("measured.l2_red_gb_per_s: expected a positive number") != std::string::npos);
}

TEST_CASE("bad configs: one line naming the file, the line and the key") {
  TempDir dir;
  SUBCASE("missing file") { CHECK(error_of(dir.path() + "/none.yaml").find("cannot read") != std::string::npos); }
  SUBCASE("malformed YAML, with its line") {
    const std::string e = error_of(dir.write("bad.yaml", "name: x\nsm: [1, 2\n  count: 3\n"));
    CHECK(e.find("malformed YAML") != std::string::npos);
    CHECK(e.find("bad.yaml:") != std::string::npos);
  }
  SUBCASE("an unknown key, with the nearest valid one") {
    const std::string e = error_of(dir.write("k.yaml", replaced("sram_per_block_bytes", "sram_per_blok_bytes")));
    CHECK(e.find("k.yaml:6: unknown key 'sm.sram_per_blok_bytes'") != std::string::npos);
    CHECK(e.find("did you mean 'sm.sram_per_block_bytes'") != std::string::npos);
  }
  SUBCASE("keys the model never read, removed: hbm.size_bytes and clocks.memory_mhz") {
    const std::string size = error_of(dir.write("s.yaml", replaced("bandwidth_gb_per_s: 100",
                                                                   "size_bytes: 1000000\n  bandwidth_gb_per_s: 100")));
    CHECK(size.find("unknown key 'hbm.size_bytes'") != std::string::npos);
    CHECK(size.find('\n') == std::string::npos);
    const std::string clock = error_of(dir.write("m.yaml", replaced("sm_mhz: 1000", "sm_mhz: 1000\n  memory_mhz: 1000")));
    CHECK(clock.find("unknown key 'clocks.memory_mhz'") != std::string::npos);
  }
  SUBCASE("a wrong type") {
    const std::string e = error_of(dir.write("t.yaml", replaced("count: 2", "count: many")));
    CHECK(e.find("t.yaml:4: sm.count: expected a positive integer, got 'many'") != std::string::npos);
  }
  SUBCASE("a negative number") {
    const std::string e = error_of(dir.write("n.yaml", replaced("bandwidth_gb_per_s: 100", "bandwidth_gb_per_s: -1")));
    CHECK(e.find("hbm.bandwidth_gb_per_s: expected a positive number") != std::string::npos);
  }
  SUBCASE("a missing key") {
    const std::string e = error_of(dir.write("m.yaml", replaced("  ways: 16\n", "")));
    CHECK(e.find("l2.ways: missing") != std::string::npos);
  }
  SUBCASE("more ways than the model keeps") {
    const std::string e = error_of(dir.write("w.yaml", replaced("  ways: 16\n", "  ways: 512\n")));
    CHECK(e.find("l2.ways must be at most 256") != std::string::npos);
  }
  SUBCASE("a line that is not a power of two") {
    const std::string e = error_of(dir.write("p.yaml", replaced("line_bytes: 128", "line_bytes: 96")));
    CHECK(e.find("l2.line_bytes and l2.sector_bytes must be powers of two") != std::string::npos);
  }
  SUBCASE("more sectors a line than the model keeps") {
    const std::string e = error_of(dir.write("s.yaml", replaced("sector_bytes: 32", "sector_bytes: 8")));
    CHECK(e.find("l2.line_bytes must be at most 8 sectors") != std::string::npos);
  }
  SUBCASE("inconsistent figures") {
    const std::string e = error_of(dir.write("i.yaml", replaced("sram_per_block_bytes: 1024", "sram_per_block_bytes: 4096")));
    CHECK(e.find("exceeds") != std::string::npos);
  }
  SUBCASE("not a mapping") { CHECK(error_of(dir.write("l.yaml", "- 1\n- 2\n")).find("expected a mapping") != std::string::npos); }
  SUBCASE("empty") { CHECK(error_of(dir.write("e.yaml", "")).find("empty") != std::string::npos); }
}

TEST_CASE("scenarios: every field optional, types checked") {
  TempDir dir;
  const Scenario s = load_scenario(dir.write("s.yaml", "description: x\nconfig: a100.yaml\nproblem:\n  batch: 64\n"
                                                        "  heads: 16\n  n: 1024\n  d: 64\n  dtype: bf16\n"
                                                        "schedules: [naive, flash2]\ntiles: {br: 64, bc: 32}\n"));
  CHECK(s.batch == 64u);
  CHECK(s.dtype == DType::bf16);
  CHECK(s.schedules->size() == 2);
  CHECK(s.bc == std::vector<std::uint64_t>{32});
  CHECK(load_scenario(dir.write("l.yaml", "tiles: {br: 16, bc: [64, 128, 256]}\n")).bc.size() == 3);
  CHECK_THROWS_WITH_AS((void)load_scenario(dir.write("z.yaml", "tiles: {bc: [64, 0]}\n")),
                       doctest::Contains("tiles.bc: expected a positive integer or a list"), ConfigError);
  CHECK_FALSE(s.n_kv.has_value());
  CHECK_THROWS_WITH_AS((void)load_scenario(dir.write("b.yaml", "problem:\n  dtype: fp64\n")), doctest::Contains("fp64"),
                       ConfigError);
  CHECK_THROWS_WITH_AS((void)load_scenario(dir.write("c.yaml", "problem:\n  n: 0\n")),
                       doctest::Contains("problem.n: expected a positive integer"), ConfigError);
  CHECK_THROWS_WITH_AS((void)load_scenario(dir.write("d.yaml", "schedule: [naive]\n")),
                       doctest::Contains("did you mean 'schedules'"), ConfigError);
}

TEST_CASE("config search: working directory, then the installed folder, and a helpful miss") {
  CHECK(find_file("a100.yaml", config_dir(), "config").find("configs/a100.yaml") != std::string::npos);
  CHECK(find_file("h200", config_dir(), "config").find("configs/h200.yaml") != std::string::npos);
  try {
    (void)find_file("a10.yaml", config_dir(), "config");
    FAIL("expected ConfigError");
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    CHECK(msg.find("config 'a10.yaml' not found: looked in") != std::string::npos);
    CHECK(msg.find("a100.yaml, a100-80gb.yaml") == std::string::npos);  // sorted: a100-80gb before a100
    CHECK(msg.find("a100-80gb.yaml, a100.yaml, h100.yaml, h200.yaml, teaching.yaml") != std::string::npos);
  }
  CHECK(edit_distance("kitten", "sitting") == 3);
}
