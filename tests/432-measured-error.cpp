// The measured error printed beside a prediction: configs/validated-error.csv read strictly, the row of
// each predicted schedule run found by schedule, pass, mask and paging, and a bad file refused in one line.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "src/config/validated_error.h"
#include "src/config/yaml_map.h"
#include "support/cli_run.h"
#include "support/temp_file.h"


using namespace iosim::test;

namespace {

const char* kHeader = "config,schedule,pass,mask,paged,counter,kernels,median_pct,max_pct,n_min,n_max,sources\n";

/// A copy of configs/h200.yaml in `dir`, so that the validated-error.csv written beside it is its own.
std::string h200_copy(const TempDir& dir) {
  std::ifstream in(std::string(IOSIM_SOURCE_DIR) + "/configs/h200.yaml");
  std::stringstream text;
  text << in.rdbuf();
  return dir.write("h200.yaml", text.str());
}

}  // namespace

TEST_CASE("validated-error.csv: the rows of one config, grouped by kind, counters in file order") {
  TempDir dir;
  const std::string config = h200_copy(dir);
  dir.write("validated-error.csv", std::string("# a comment\n") + kHeader +
                                       "h100,flash2,fwd,none,0,l2_read,2,46.5,63.0,1024,1024,a\n"
                                       "h200,flash2,fwd,none,0,l2_read,5,65.9,73.2,1024,1500,b c\n"
                                       "h200,flash2,fwd,none,0,time_cold,5,5.5,8.1,1024,1500,b c\n"
                                       "h200,flash2,fwd,causal,1,dram_read,3,0.1,0.4,4096,16384,d\n");
  const std::vector<iosim::ValidatedKind> k = iosim::config::load_validated_errors(config);
  REQUIRE(k.size() == 2);
  CHECK(k[0].schedule == "flash2");
  CHECK(k[0].mask == "none");
  CHECK_FALSE(k[0].paged);
  CHECK(k[0].n_min == 1024);
  CHECK(k[0].n_max == 1500);
  CHECK(k[0].sources == "b c");
  REQUIRE(k[0].counters.size() == 2);
  CHECK(k[0].counters[0].counter == "l2_read");
  CHECK(k[0].counters[0].kernels == 5);
  CHECK(k[0].counters[0].median_pct == doctest::Approx(65.9));
  CHECK(k[0].counters[1].max_pct == doctest::Approx(8.1));
  CHECK(k[1].mask == "causal");
  CHECK(k[1].paged);
}

TEST_CASE("validated-error.csv: none beside the config is no row, and a malformed one is one line naming it") {
  TempDir dir;
  const std::string config = h200_copy(dir);
  CHECK(iosim::config::load_validated_errors(config).empty());
  const auto refused = [&](const std::string& body, const std::string& says) {
    dir.write("validated-error.csv", body);
    try {
      (void)iosim::config::load_validated_errors(config);
      FAIL("accepted: " << body);
    } catch (const iosim::config::ConfigError& e) {
      const std::string what = e.what();
      CHECK(what.find("validated-error.csv:") != std::string::npos);
      CHECK(what.find(says) != std::string::npos);
      CHECK(what.find('\n') == std::string::npos);
    }
  };
  refused(std::string(kHeader) + "h200,flash2,fwd,none,0,l2_read,two,1,2,1024,1024,a\n", "kernels 'two' is not a number");
  refused(std::string(kHeader) + "h200,flash2,fwd,none,2,l2_read,2,1,2,1024,1024,a\n", "paged '2' is not 0 or 1");
  refused(std::string(kHeader) + "h200,flash2,fwd\n", "3 columns, expected 12");
  refused("config,schedule,pass,mask,paged,counter,kernels,median,max_pct,n_min,n_max,sources\n", "'median'");
}

TEST_CASE("--predict prints the measured error of each schedule run's kind, or that none was measured") {
  // The shipped table: flash2's forward without a mask ran on the H200 (h200-kernels-check-masks);
  // the naive forward with a window never did.
  const CliResult t = cli({"-c", "h200", "--n", "1024", "--d", "64", "--schedule", "flash2", "-p"});
  REQUIRE(t.code == 0);
  CHECK(t.out.find("measured error of such predictions on this GPU") != std::string::npos);
  const CliResult j = cli({"-c", "h200", "--n", "1024", "--d", "64", "--schedule", "flash2", "-p", "-f", "json"});
  REQUIRE(j.code == 0);
  const YAML::Node v = parse_json(j.out)["runs"][0]["schedules"][0]["validated"];
  REQUIRE(v.IsMap());
  CHECK(v["mask"].as<std::string>() == "none");
  CHECK(v["counters"]["l2_write"]["kernels"].as<std::uint64_t>() >= 1);
  CHECK(v["counters"]["time_cold"]["median_abs_error_pct"].as<double>() >= 0);
  const CliResult w = cli({"-c", "h200", "--n", "1024", "--d", "64", "--schedule", "naive", "--causal", "--window",
                           "128", "-p", "-f", "json"});
  REQUIRE(w.code == 0);
  CHECK(parse_json(w.out)["runs"][0]["schedules"][0]["validated"].IsNull());
  const CliResult tw = cli({"-c", "h200", "--n", "1024", "--d", "64", "--schedule", "naive", "--causal", "--window",
                            "128", "-p"});
  CHECK(tw.out.find("not measured on this GPU") != std::string::npos);
}
