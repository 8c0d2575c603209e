// What `iosim calibrate` prints and writes, without a GPU: a hand-made gpu::Ceilings stands in for a
// measurement. The `measured:` section it writes replaces the config's own in place, every other byte
// kept, and the result loads with the measured figures in place of the defaults.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cuda/backend.h"
#include "sim/core/hardware.h"
#include "src/cli/calibrate_report.h"
#include "src/config/hardware_config.h"
#include "src/config/measured_section.h"
#include "src/config/yaml_map.h"
#include "support/cli_run.h"
#include "support/temp_file.h"
#include "support/toy_config.h"

using namespace iosim;
using namespace iosim::config;
using iosim::test::TempDir;

namespace {

/// A measurement as an H200 might give it; bf16 left unmeasured (0) on purpose.
gpu::Ceilings fake_ceilings() {
  gpu::Ceilings c;
  c.device = "Fake GPU";
  c.sm_count = 2;
  c.max_sm_mhz = 1000;
  c.hbm_gb_per_s = 81.5;
  c.l2_gb_per_s = 400;
  c.sram_gb_per_s = 33070;
  c.tensor_fp16_tflops = 0.75;
  c.gemm_fp16_tflops = 0.9;
  c.exp2_g_per_s = 30;
  c.pipeline.clock_mhz = 980;
  c.pipeline.mma_latency = 35.2;
  c.pipeline.ldmatrix_latency = 33;
  c.pipeline.lds_latency = 31;
  c.pipeline.cp_async_latency = 512.5;
  c.pipeline.ex2_latency = 18;
  c.pipeline.fma_latency = 4;
  c.pipeline.shfl_latency = 27;
  c.pipeline.shfl_interval = 2;
  c.pipeline.bar_latency = 22;
  c.pipeline.l2_hit_latency = 273;
  c.pipeline.dram_latency = 812.3;
  c.pipeline.launch_us = 2.25;
  c.pipeline.wgmma_latency = 118.5;
  c.pipeline.wgmma_interval = 66.75;
  return c;
}

/// The same on a device (or a build) without wgmma: its two figures 0, and why.
gpu::Ceilings fake_ceilings_without_wgmma() {
  gpu::Ceilings c = fake_ceilings();
  c.pipeline.wgmma_latency = 0;
  c.pipeline.wgmma_interval = 0;
  c.wgmma_not_measured = "no wgmma on this device (compute capability 8.0; ...)";
  return c;
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string kSection = "measured:\n  hbm_gb_per_s: 90\n  date: 2026-12-01\n";

}  // namespace

TEST_CASE("replace_measured_section: in place, every other byte kept") {
  SUBCASE("no section: appended, after a newline if the file lacks its last") {
    CHECK(replace_measured_section("a: 1\n", kSection, "f") == "a: 1\n" + kSection);
    CHECK(replace_measured_section("a: 1", kSection, "f") == "a: 1\n" + kSection);
    CHECK(replace_measured_section("", kSection, "f") == kSection);
  }
  SUBCASE("a section between others, with its comments, blank lines and a column-0 comment inside") {
    const std::string before = "# head\nname: x\n# Measured (comment above the section, kept)\n";
    const std::string old = "measured:   # trailing comment\n  hbm_gb_per_s: 10  # c\n\n# inside\n    # deeper\n  l2_gb_per_s: 3\n";
    const std::string after = "\n# SM pipeline (kept)\npipeline:\n  clock_mhz: 1\n";
    CHECK(replace_measured_section(before + old + after, kSection, "f") == before + kSection + after);
  }
  SUBCASE("a section at the end, without a final newline, and trailing comments after it") {
    CHECK(replace_measured_section("a: 1\nmeasured:\n  x: 1", kSection, "f") == "a: 1\n" + kSection);
    CHECK(replace_measured_section("a: 1\nmeasured:\n  x: 1\n\n# end\n", kSection, "f") == "a: 1\n" + kSection + "\n# end\n");
  }
  SUBCASE("an empty section, CRLF line ends outside it, and keys that only start like it") {
    CHECK(replace_measured_section("a: 1\r\nmeasured:\r\nb: 2\r\n", kSection, "f") == "a: 1\r\n" + kSection + "b: 2\r\n");
    CHECK(replace_measured_section("measured_by: me\n  x: 1\n", kSection, "f") == "measured_by: me\n  x: 1\n" + kSection);
    CHECK(replace_measured_section("n:\n  measured:\n    x: 1\n", kSection, "f") == "n:\n  measured:\n    x: 1\n" + kSection);
  }
  SUBCASE("figures another tool measured are kept, line and comment, before the new date") {
    const std::string old = "measured:\n  hbm_gb_per_s: 10\n  wgmma_clock_mhz: 1645  # ncu\n  date: 2026-11-01\n";
    CHECK(replace_measured_section("a: 1\n" + old, kSection, "f", {"wgmma_clock_mhz"}) ==
          "a: 1\nmeasured:\n  hbm_gb_per_s: 90\n  wgmma_clock_mhz: 1645  # ncu\n  date: 2026-12-01\n");
    CHECK(replace_measured_section("a: 1\n" + old, kSection, "f") == "a: 1\n" + kSection);  // nothing kept
    // A key that only starts like a kept one is not kept.
    CHECK(replace_measured_section("measured:\n  wgmma_clock_mhz_x: 1\n", kSection, "f", {"wgmma_clock_mhz"}) ==
          kSection);
  }
  SUBCASE("what it cannot rewrite line by line") {
    CHECK_THROWS_WITH_AS((void)replace_measured_section("a: 1\nmeasured: {hbm_gb_per_s: 3}\n", kSection, "c.yaml"),
                         doctest::Contains("c.yaml:2: measured: is written in flow style"), ConfigError);
    CHECK_THROWS_WITH_AS((void)replace_measured_section("measured:\n  x: 1\nmeasured:\n  y: 2\n", kSection, "c.yaml"),
                         doctest::Contains("c.yaml:3: a second top-level measured: key"), ConfigError);
  }
}

TEST_CASE("the measured: section of a measurement: every figure measured, its source, the date") {
  const std::string s = cli::measured_section(fake_ceilings(), "2026-12-01");
  CHECK(s.rfind("measured:\n", 0) == 0);
  CHECK(s.find("  hbm_gb_per_s: 81.5") != std::string::npos);
  CHECK(s.find("  sram_gb_per_s: 3.307e+04") != std::string::npos);
  CHECK(s.find("tensor_bf16_tflops") == std::string::npos);  // not measured: left out
  CHECK(s.find("  gemm_fp16_tflops: 0.9 ") != std::string::npos);  // the cuBLAS GEMM: wgmma's rate
  CHECK(s.find("  mma_latency: 35.2 ") != std::string::npos);
  CHECK(s.find("  dram_latency: 812.3 ") != std::string::npos);
  CHECK(s.find("  launch_us: 2.25 ") != std::string::npos);
  // wgmma's figures: measured, but a comment, not keys (no family is priced with them yet)
  CHECK(s.find("  wgmma_latency:") == std::string::npos);
  CHECK(s.find("  # measured, not used (docs/validation.md, \"wgmma\"): wgmma_latency: 118.5 wgmma_interval: 66.75 ·") !=
        std::string::npos);
  const std::string none = cli::measured_section(fake_ceilings_without_wgmma(), "2026-12-01");
  CHECK(none.find("wgmma") == std::string::npos);  // not measured: left out, the config's default stays
  CHECK(none.find("  launch_us: 2.25 ") != std::string::npos);
  CHECK(s.find("# [H] iosim calibrate, Fake GPU, 2026-12-01\n") != std::string::npos);
  CHECK(s.size() >= 14);
  CHECK(s.substr(s.size() - 19) == "  date: 2026-12-01\n");
}

TEST_CASE("--write: the toy config and h200.yaml take the measured section and load with its figures") {
  TempDir dir;
  const std::string section = cli::measured_section(fake_ceilings(), "2026-12-01");
  SUBCASE("a config without measured:") {
    const std::string path = dir.write("toy.yaml", iosim::test::kToyConfig);
    write_measured_section(path, section);
    CHECK(read(path) == iosim::test::kToyConfig + section);
    const HardwareSpec hw = load_hardware(path);
    CHECK(hw.measured.date == "2026-12-01");
    CHECK(hw.measured.hbm_gb_per_s == doctest::Approx(81.5));
    CHECK(hw.measured.tensor_bf16_tflops == 0);
    CHECK(hw.measured.gemm_fp16_tflops == doctest::Approx(0.9));
    CHECK(pipeline_figure(hw, &PipelineSpec::mma_latency) == doctest::Approx(35.2));
    CHECK(pipeline_figure(hw, &PipelineSpec::dram_latency) == doctest::Approx(812.3));
    // wgmma's two, measured but written as a comment, and the TMA copy's, which calibrate does not
    // measure, are the figures the config does not have
    CHECK(unmeasured_pipeline_figures(hw) ==
          std::vector<std::string>{"wgmma_latency", "wgmma_interval", "tma_copy_cycles"});
    CHECK(hw.measured.pipeline.wgmma_latency == 0);
    CHECK(pipeline_figure(hw, &PipelineSpec::wgmma_interval) == 0);
    // Again: the section written the first time is replaced, not repeated.
    write_measured_section(path, section);
    CHECK(read(path) == iosim::test::kToyConfig + section);
  }
  SUBCASE("h200.yaml, whose measured: section is replaced and whose other lines stay byte for byte") {
    const std::string original = read(std::string(IOSIM_SOURCE_DIR) + "/configs/h200.yaml");
    const std::string path = dir.write("h200.yaml", original);
    write_measured_section(path, section);
    const std::string updated = read(path);
    const std::size_t at = original.find("\nmeasured:\n") + 1;
    REQUIRE(at != std::string::npos + 1);
    // What follows the section (its comments, then kernel_rates:) stays too.
    const std::size_t rest = original.find("\n\n# PyTorch's eager kernels", at) + 1;
    REQUIRE(rest != std::string::npos + 1);
    CHECK(updated.substr(0, at) == original.substr(0, at));
    CHECK(updated.substr(at) == section + original.substr(rest));
    const HardwareSpec hw = load_hardware(path);
    CHECK(hw.measured.l2_gb_per_s == doctest::Approx(400));
    CHECK(hw.measured.pipeline.l2_hit_latency == doctest::Approx(273));
    CHECK(hw.pipeline.l2_hit_latency == doctest::Approx(281));  // the default is still there
    CHECK(hw.measured.pipeline.wgmma_interval == 0);
  }
  SUBCASE("a measurement without wgmma: the file loads, its wgmma figures not known") {
    const std::string path = dir.write("toy.yaml", iosim::test::kToyConfig);
    write_measured_section(path, cli::measured_section(fake_ceilings_without_wgmma(), "2026-12-01"));
    const HardwareSpec hw = load_hardware(path);
    CHECK(hw.measured.pipeline.mma_latency == doctest::Approx(35.2));
    CHECK(pipeline_figure(hw, &PipelineSpec::wgmma_latency) == 0);
    CHECK(pipeline_figure(hw, &PipelineSpec::wgmma_interval) == 0);
  }
  SUBCASE("a section that would not load leaves the file as it was") {
    const std::string path = dir.write("toy.yaml", iosim::test::kToyConfig);
    CHECK_THROWS_WITH_AS(write_measured_section(path, "measured:\n  mma_latncy: 3\n"),
                         doctest::Contains("did you mean 'measured.mma_latency'"), ConfigError);
    CHECK(read(path) == iosim::test::kToyConfig);
  }
  SUBCASE("a file that is not there") {
    CHECK_THROWS_WITH_AS(write_measured_section(dir.path() + "/none.yaml", section), doctest::Contains("cannot read"),
                         ConfigError);
  }
}

TEST_CASE("calibrate's tables: measured beside the config's figure and their ratio") {
  TempDir dir;
  const HardwareSpec toy = load_hardware(dir.write("toy.yaml", iosim::test::kToyConfig));
  const std::string p = cli::pipeline_table(fake_ceilings(), &toy);
  // mma: 35.2 measured against the toy's 32: 1.10.
  CHECK(p.find("mma_latency") != std::string::npos);
  CHECK(p.find("35.2 cycles") != std::string::npos);
  CHECK(p.find("32 cycles") != std::string::npos);
  CHECK(p.find("1.10") != std::string::npos);
  CHECK(p.find("2.25 us") != std::string::npos);
  const std::string no_config = cli::pipeline_table(fake_ceilings(), nullptr);
  CHECK(no_config.find("1.10") == std::string::npos);
  // wgmma_interval beside the datasheet's dense fp16 rate, the toy having no pipeline: default: its
  // 1 TFLOP/s on 2 SMs at 1000 MHz are 500 FLOPs a cycle of one SM, 2·64·128·16 / 500 = 524.288 cycles
  // per m64n128k16; 66.75 measured is 0.13 of that.
  CHECK(p.find("524.3 cycles (datasheet)") != std::string::npos);
  CHECK(p.find("0.13") != std::string::npos);
  CHECK(p.find("118.5 cycles") != std::string::npos);
  CHECK(p.find("not measured") == std::string::npos);
  const std::string without = cli::pipeline_table(fake_ceilings_without_wgmma(), &toy);
  CHECK(without.find("not measured") != std::string::npos);
  CHECK(without.find("wgmma figures not measured: no wgmma on this device (compute capability 8.0") != std::string::npos);
  const std::string r = cli::rate_table(fake_ceilings(), &toy);
  CHECK(r.find("82%") != std::string::npos);  // HBM 81.5 of the toy's 100 GB/s
}

TEST_CASE("calibrate --write checks its file before it needs a GPU") {
  TempDir dir;
  const iosim::test::CliResult missing = iosim::test::cli({"calibrate", "--write", dir.path() + "/none.yaml"});
  CHECK(missing.code == 2);
  CHECK(missing.err.find("none.yaml: cannot read") != std::string::npos);
  const std::string bad = dir.write("bad.yaml", "name: x\n");
  const iosim::test::CliResult invalid = iosim::test::cli({"calibrate", "--write", bad});
  CHECK(invalid.code == 2);
  CHECK(invalid.err.find("missing") != std::string::npos);
  if (!iosim::gpu::available(nullptr)) {
    const std::string good = dir.write("toy.yaml", iosim::test::kToyConfig);
    const iosim::test::CliResult r = iosim::test::cli({"calibrate", "--write", good});
    CHECK(r.code == 2);
    CHECK(r.err.find("needs a CUDA GPU") != std::string::npos);
    CHECK(read(good) == iosim::test::kToyConfig);
  }
}
