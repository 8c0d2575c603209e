// Defaults for a GPU never calibrated: its datasheet figures scaled by the share of theirs that
// calibrated GPUs of the same architecture measured (corrected_by:, sim/core/peer_correction.h).
#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <utility>

#include "sim/core/peer_correction.h"
#include "src/config/hardware_config.h"
#include "support/config_errors.h"
#include "support/temp_file.h"

using namespace iosim;
using namespace iosim::test;

namespace {

HardwareSpec shipped(const char* name) {
  return config::load_hardware(std::string(IOSIM_SOURCE_DIR) + "/configs/" + name);
}

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const CorrectedFigure* corrected(const HardwareSpec& hw, const std::string& key) {
  for (const CorrectedFigure& c : hw.corrected) {
    if (c.key == key) return &c;
  }
  return nullptr;
}

/// A spec named `name` with nothing else set (the tests fill what they need).
HardwareSpec named(std::string name) {
  HardwareSpec hw;
  hw.name = std::move(name);
  return hw;
}

/// The toy config under another name, with `measured` as its measured: section ("" for none).
std::string toy(const std::string& name, const std::string& measured, const std::string& extra = "") {
  std::string line = "name: ";
  line.append(name);
  std::string s = replaced("name: toy", line);
  if (!measured.empty()) s.append("measured:\n").append(measured);
  return s.append(extra);
}

}  // namespace

TEST_CASE("a figure the config lacks is its datasheet figure times the peers' mean measured share") {
  HardwareSpec peer_a = named("A"), peer_b = named("B"), hw = named("C");
  peer_a.hbm.bandwidth_gb_per_s = 1000;
  peer_a.measured.hbm_gb_per_s = 800;  // 0.8
  peer_a.pipeline.clock_mhz = 2000;
  peer_a.measured.pipeline.clock_mhz = 1800;  // 0.9
  peer_b.hbm.bandwidth_gb_per_s = 2000;
  peer_b.measured.hbm_gb_per_s = 1400;  // 0.7
  hw.hbm.bandwidth_gb_per_s = 3000;
  hw.pipeline.clock_mhz = 1500;
  hw.pipeline.lds_latency = 30;  // no peer measured it: stays the default
  const std::vector<CorrectedFigure> out = correct_from_peers(hw, {peer_a, peer_b});
  CHECK(hw.measured.hbm_gb_per_s == doctest::Approx(3000 * 0.75));
  CHECK(hw.measured.pipeline.clock_mhz == doctest::Approx(1500 * 0.9));
  CHECK(hw.measured.pipeline.lds_latency == 0);
  REQUIRE(out.size() == 2);
  CHECK(out[0].key == "hbm_gb_per_s");
  CHECK(out[0].share == doctest::Approx(0.75));
  CHECK(out[0].peers == std::vector<std::string>{"A", "B"});
  CHECK(out[1].key == "clock_mhz");
  CHECK(out[1].peers == std::vector<std::string>{"A"});
}

TEST_CASE("what the config measured itself is kept, and a GPU is never corrected by its own measurement") {
  HardwareSpec self = named("H"), hw = named("H");
  self.hbm.bandwidth_gb_per_s = hw.hbm.bandwidth_gb_per_s = 1000;
  self.measured.hbm_gb_per_s = 500;
  CHECK(correct_from_peers(hw, {self}).empty());
  CHECK(hw.measured.hbm_gb_per_s == 0);
  HardwareSpec other = named("O");
  other.hbm = self.hbm;
  other.measured = self.measured;
  hw.measured.hbm_gb_per_s = 900;
  CHECK(correct_from_peers(hw, {other}).empty());
  CHECK(hw.measured.hbm_gb_per_s == 900);
}

TEST_CASE("every correctable figure has a datasheet figure on the shipped Hopper configs") {
  const HardwareSpec h200 = shipped("h200.yaml");
  for (const std::string& key : correctable_figures()) {
    CAPTURE(key);
    if (key.rfind("wgmma", 0) == 0) continue;  // optional: no datasheet figure
    CHECK(datasheet_figure(h200, key) > 0);
  }
}

TEST_CASE("h100.yaml less its measured: section: the H200's measured shares applied to the H100's datasheet") {
  CHECK(shipped("h100.yaml").corrected.empty());  // calibrated: every figure its own
  const std::string text = file_text(std::string(IOSIM_SOURCE_DIR) + "/configs/h100.yaml");
  const std::size_t from = text.find("\nmeasured:\n");
  REQUIRE(from != std::string::npos);
  std::size_t to = from + 1;
  while ((to = text.find('\n', to) + 1) < text.size() && (text[to] == ' ' || text[to] == '\n')) {
  }
  const TempDir dir;
  dir.write("h200.yaml", file_text(std::string(IOSIM_SOURCE_DIR) + "/configs/h200.yaml"));
  const HardwareSpec h100 = config::load_hardware(dir.write("h100.yaml", text.substr(0, from + 1) + text.substr(to)));
  const HardwareSpec h200 = shipped("h200.yaml");
  REQUIRE_FALSE(h100.corrected.empty());
  const CorrectedFigure* hbm = corrected(h100, "hbm_gb_per_s");
  REQUIRE(hbm != nullptr);
  CHECK(hbm->peers == std::vector<std::string>{h200.name});
  CHECK(hbm->value == doctest::Approx(h100.hbm.bandwidth_gb_per_s * h200.measured.hbm_gb_per_s /
                                      h200.hbm.bandwidth_gb_per_s));
  CHECK(h100.measured.hbm_gb_per_s == doctest::Approx(hbm->value));
  const CorrectedFigure* clock = corrected(h100, "clock_mhz");
  REQUIRE(clock != nullptr);
  CHECK(clock->value == doctest::Approx(h100.pipeline.clock_mhz * h200.measured.pipeline.clock_mhz /
                                        h200.pipeline.clock_mhz));
  CHECK(h200.corrected.empty());  // calibrated itself, and names no peers
}

TEST_CASE("corrected_by: beside the config, one architecture, no chains, one-line errors") {
  const TempDir dir;
  dir.write("peer.yaml", toy("peer", "  hbm_gb_per_s: 50\n", "corrected_by: [third.yaml]\n"));
  const std::string path = dir.write("gpu.yaml", toy("gpu", "", "corrected_by: [peer.yaml]\n"));
  const HardwareSpec hw = config::load_hardware(path);
  CHECK(hw.measured.hbm_gb_per_s == doctest::Approx(50));  // the same datasheet: the peer's figure
  REQUIRE(hw.corrected.size() == 1);
  CHECK(hw.corrected[0].peers == std::vector<std::string>{"peer"});

  dir.write("other.yaml", replaced("arch: sm_00", "arch: sm_90"));
  const std::string err = error_of(dir.write("bad-arch.yaml", toy("b", "", "corrected_by: [other.yaml]\n")));
  CHECK(err.find("corrected_by: 'other.yaml' is sm_90, not sm_00") != std::string::npos);
  CHECK(err.find('\n') == std::string::npos);

  const std::string missing = error_of(dir.write("missing.yaml", toy("m", "", "corrected_by: [nowhere.yaml]\n")));
  CHECK(missing.find("nowhere") != std::string::npos);
}
