// The `pipeline:` section (the SM model's latencies) and its measured overrides: every shipped config has
// every figure, a measured figure replaces its default, and every bad value is one clear line.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "sim/core/hardware.h"
#include "src/config/hardware_config.h"
#include "src/config/yaml_map.h"
#include "support/temp_file.h"
#include "support/config_errors.h"
#include "support/toy_config.h"

using namespace iosim;
using namespace iosim::config;
using iosim::test::error_of;
using iosim::test::replaced;
using iosim::test::TempDir;

namespace {

std::vector<std::string> all_keys() {
  std::vector<std::string> keys;
  for (const PipelineField& f : kPipelineFields) keys.emplace_back(f.key);
  return keys;
}

}  // namespace

TEST_CASE("the field table names every member of PipelineSpec once") {
  static_assert(sizeof(PipelineSpec) == std::size(kPipelineFields) * sizeof(double));
  PipelineSpec p;
  double v = 1;
  for (const PipelineField& f : kPipelineFields) p.*(f.field) = v++;
  // Each member got its own value: no two entries point at the same member.
  std::vector<double> seen;
  for (const PipelineField& f : kPipelineFields) seen.push_back(p.*(f.field));
  std::sort(seen.begin(), seen.end());
  CHECK(std::adjacent_find(seen.begin(), seen.end()) == seen.end());
  CHECK(p.clock_mhz == 1);
  CHECK(p.launch_us == 13);
  CHECK(std::string(kPipelineFields[12].key) == "launch_us");
}

TEST_CASE("every shipped config has every pipeline figure, and launch_us is its launch overhead") {
  for (const char* name : {"a100.yaml", "a100-80gb.yaml", "h100.yaml", "h200.yaml", "teaching.yaml"}) {
    CAPTURE(name);
    const HardwareSpec hw = load_hardware(std::string(IOSIM_SOURCE_DIR) + "/configs/" + name);
    for (const PipelineField& f : kPipelineFields) {
      CAPTURE(f.key);
      if (f.optional) {
        CHECK(hw.pipeline.*(f.field) >= 0);  // wgmma's: not known (0) where no source gives it
      } else {
        CHECK(hw.pipeline.*(f.field) > 0);
      }
    }
    CHECK(hw.pipeline.launch_us == hw.launch_overhead_us);
    CHECK(hw.pipeline.clock_mhz <= hw.clock.sm_mhz);
    CHECK(hw.pipeline.l2_hit_latency < hw.pipeline.dram_latency);
  }
  // No shipped config has measured latencies yet: every figure is a default.
  const HardwareSpec a100 = load_hardware(std::string(IOSIM_SOURCE_DIR) + "/configs/a100.yaml");
  CHECK(unmeasured_pipeline_figures(a100) == all_keys());
  CHECK(a100.measured.date.empty());
}

TEST_CASE("a measured figure replaces its default; the rest stay defaults") {
  TempDir dir;
  const HardwareSpec none = load_hardware(dir.write("a.yaml", iosim::test::kToyConfig));
  CHECK(none.pipeline.mma_latency == doctest::Approx(32));
  CHECK(none.pipeline.cp_async_latency == doctest::Approx(300));
  CHECK(pipeline_figure(none, &PipelineSpec::mma_latency) == doctest::Approx(32));
  CHECK(unmeasured_pipeline_figures(none).size() == std::size(kPipelineFields));

  const HardwareSpec some = load_hardware(dir.write(
      "b.yaml", std::string(iosim::test::kToyConfig) +
                    "measured:\n  hbm_gb_per_s: 80\n  mma_latency: 31.5\n  dram_latency: 812\n  date: 2026-12-01\n"));
  CHECK(some.measured.pipeline.mma_latency == doctest::Approx(31.5));
  CHECK(some.measured.pipeline.ex2_latency == 0);
  CHECK(some.measured.date == "2026-12-01");
  CHECK(some.measured.hbm_gb_per_s == doctest::Approx(80));
  CHECK(pipeline_figure(some, &PipelineSpec::mma_latency) == doctest::Approx(31.5));
  CHECK(pipeline_figure(some, &PipelineSpec::dram_latency) == doctest::Approx(812));
  CHECK(pipeline_figure(some, &PipelineSpec::ex2_latency) == doctest::Approx(20));  // the default
  const std::vector<std::string> left = unmeasured_pipeline_figures(some);
  CHECK(left.size() == std::size(kPipelineFields) - 2);
  CHECK(std::find(left.begin(), left.end(), "mma_latency") == left.end());
  CHECK(std::find(left.begin(), left.end(), "dram_latency") == left.end());
  CHECK(std::find(left.begin(), left.end(), "ex2_latency") != left.end());
  CHECK(left.front() == "clock_mhz");  // in the order of the struct
}

TEST_CASE("the Hopper figures: optional in pipeline: (absent or 0: not known), positive in measured:") {
  TempDir dir;
  CHECK(std::string(kPipelineFields[13].key) == "wgmma_latency");
  CHECK(std::string(kPipelineFields[14].key) == "wgmma_interval");
  CHECK(std::string(kPipelineFields[15].key) == "tma_copy_cycles");
  std::size_t optional = 0;
  for (const PipelineField& f : kPipelineFields) optional += f.optional ? 1 : 0;
  CHECK(optional == 3);
  CHECK(kPipelineFields[13].optional);
  CHECK(kPipelineFields[14].optional);
  CHECK(kPipelineFields[15].optional);
  const HardwareSpec none = load_hardware(dir.write("a.yaml", iosim::test::kToyConfig));
  CHECK(none.pipeline.wgmma_latency == 0);
  CHECK(none.pipeline.wgmma_interval == 0);
  CHECK(pipeline_figure(none, &PipelineSpec::wgmma_interval) == 0);

  const std::string with_defaults =
      replaced("  launch_us: 4\n", "  launch_us: 4\n  wgmma_latency: 0\n  wgmma_interval: 66.5\n");
  const HardwareSpec d = load_hardware(dir.write("b.yaml", with_defaults));
  CHECK(d.pipeline.wgmma_latency == 0);
  CHECK(d.pipeline.wgmma_interval == doctest::Approx(66.5));
  CHECK(pipeline_figure(d, &PipelineSpec::wgmma_interval) == doctest::Approx(66.5));

  const HardwareSpec m = load_hardware(dir.write(
      "c.yaml", with_defaults + "measured:\n  wgmma_latency: 121.5\n  wgmma_interval: 64.25\n  date: 2026-12-02\n"));
  CHECK(m.measured.pipeline.wgmma_latency == doctest::Approx(121.5));
  CHECK(m.measured.pipeline.wgmma_interval == doctest::Approx(64.25));
  CHECK(pipeline_figure(m, &PipelineSpec::wgmma_latency) == doctest::Approx(121.5));
  CHECK(pipeline_figure(m, &PipelineSpec::wgmma_interval) == doctest::Approx(64.25));  // measured over default
  const std::vector<std::string> left = unmeasured_pipeline_figures(m);
  CHECK(std::find(left.begin(), left.end(), "wgmma_interval") == left.end());
  CHECK(std::find(left.begin(), left.end(), "mma_latency") != left.end());

  SUBCASE("pipeline: a negative wgmma figure") {
    const std::string e = error_of(dir.write("n.yaml", replaced("  launch_us: 4\n", "  launch_us: 4\n  wgmma_latency: -3\n")));
    CHECK(e.find("pipeline.wgmma_latency: expected a number ≥ 0, got '-3'") != std::string::npos);
  }
  SUBCASE("measured: a wgmma figure of zero (calibrate leaves out what it did not measure)") {
    const std::string e =
        error_of(dir.write("z.yaml", std::string(iosim::test::kToyConfig) + "measured:\n  wgmma_interval: 0\n"));
    CHECK(e.find("measured.wgmma_interval: expected a positive number") != std::string::npos);
  }
  SUBCASE("a misspelt wgmma key") {
    const std::string e =
        error_of(dir.write("k.yaml", std::string(iosim::test::kToyConfig) + "measured:\n  wgmma_intervl: 64\n"));
    CHECK(e.find("did you mean 'measured.wgmma_interval'") != std::string::npos);
  }
}

TEST_CASE("pipeline_figure and unmeasured_pipeline_figures need no YAML") {
  HardwareSpec hw;
  hw.pipeline.bar_latency = 20;
  CHECK(pipeline_figure(hw, &PipelineSpec::bar_latency) == 20);
  hw.measured.pipeline.bar_latency = 24;
  CHECK(pipeline_figure(hw, &PipelineSpec::bar_latency) == 24);
  CHECK(pipeline_figure(hw, &PipelineSpec::lds_latency) == 0);  // neither: 0, "not known"
  for (const PipelineField& f : kPipelineFields) hw.measured.pipeline.*(f.field) = 1;
  CHECK(unmeasured_pipeline_figures(hw).empty());
}

TEST_CASE("bad pipeline sections: one line naming the file, the line and the key") {
  TempDir dir;
  SUBCASE("the section missing") {
    std::string s = iosim::test::kToyConfig;
    s.erase(s.find("pipeline:"));
    CHECK(error_of(dir.write("s.yaml", s)).find("pipeline: missing") != std::string::npos);
  }
  SUBCASE("a key missing") {
    const std::string e = error_of(dir.write("k.yaml", replaced("  bar_latency: 20\n", "")));
    CHECK(e.find("pipeline.bar_latency: missing") != std::string::npos);
  }
  SUBCASE("zero") {
    const std::string e = error_of(dir.write("z.yaml", replaced("fma_latency: 4", "fma_latency: 0")));
    CHECK(e.find("pipeline.fma_latency: expected a positive number, got '0'") != std::string::npos);
  }
  SUBCASE("not a number") {
    const std::string e = error_of(dir.write("n.yaml", replaced("lds_latency: 29", "lds_latency: fast")));
    CHECK(e.find("pipeline.lds_latency: expected a positive number, got 'fast'") != std::string::npos);
  }
  SUBCASE("a misspelt key, with the nearest valid one") {
    const std::string e = error_of(dir.write("m.yaml", replaced("mma_latency: 32", "mma_latncy: 32")));
    CHECK(e.find("unknown key 'pipeline.mma_latncy'") != std::string::npos);
    CHECK(e.find("did you mean 'pipeline.mma_latency'") != std::string::npos);
  }
  SUBCASE("measured: a latency of zero") {
    const std::string e =
        error_of(dir.write("mz.yaml", std::string(iosim::test::kToyConfig) + "measured:\n  shfl_latency: 0\n"));
    CHECK(e.find("measured.shfl_latency: expected a positive number") != std::string::npos);
  }
  SUBCASE("measured: a misspelt latency") {
    const std::string e =
        error_of(dir.write("mk.yaml", std::string(iosim::test::kToyConfig) + "measured:\n  l2_hit_latncy: 250\n"));
    CHECK(e.find("did you mean 'measured.l2_hit_latency'") != std::string::npos);
  }
  SUBCASE("measured: a date that is not YYYY-MM-DD") {
    for (const char* bad : {"yesterday", "2026-13-01", "2026-1-01", "20261201", "2026-12-00"}) {
      CAPTURE(bad);
      const std::string e = error_of(
          dir.write("d.yaml", std::string(iosim::test::kToyConfig) + "measured:\n  date: " + bad + "\n"));
      CHECK(e.find("measured.date: expected a date YYYY-MM-DD, got '" + std::string(bad) + "'") != std::string::npos);
    }
  }
}

TEST_CASE("every pipeline figure of a real chip's config cites a source its header defines") {
  for (const char* name : {"a100.yaml", "a100-80gb.yaml", "h100.yaml", "h200.yaml"}) {
    CAPTURE(name);
    std::ifstream in(std::string(IOSIM_SOURCE_DIR) + "/configs/" + name);
    std::vector<std::string> header_tags;  // "[XX]" of "#   [XX]  ..." lines
    bool in_pipeline = false;
    int figures = 0;
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("#   [", 0) == 0) header_tags.push_back(line.substr(4, line.find(']') - 3));
      if (line.rfind("pipeline:", 0) == 0) {
        in_pipeline = true;
        continue;
      }
      if (in_pipeline && !line.empty() && line[0] != ' ') in_pipeline = false;
      if (!in_pipeline || line.empty()) continue;
      CAPTURE(line);
      ++figures;
      const std::size_t hash = line.find('#');
      REQUIRE(hash != std::string::npos);
      const std::string comment = line.substr(hash);
      const bool cites = std::any_of(header_tags.begin(), header_tags.end(),
                                     [&](const std::string& tag) { return comment.find(tag) != std::string::npos; });
      CHECK(cites);
    }
    // Every required figure; an optional one (wgmma's) only where a source gives it.
    int required = 0;
    for (const PipelineField& f : kPipelineFields) required += f.optional ? 0 : 1;
    CHECK(figures >= required);
    CHECK(figures <= static_cast<int>(std::size(kPipelineFields)));
  }
}
