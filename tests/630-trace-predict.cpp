// The GPU model seen step by step (iosim trace --predict) and wave by wave (WaveStats), and the trace
// page (iosim trace -f html): an observer changes no count; the per-step and per-wave figures add up to
// the model's totals; each step belongs to one block; the page is one self-contained file.
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "sim/gpu/gpu_model.h"
#include "sim/gpu/wave_stats.h"
#include "sim/trace/trace_predict.h"
#include "support/bad_input.h"
#include "support/cli_run.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

namespace {

/// A GPU of 4 SMs with a 2-partition L2 of 64 KiB, small enough that a few blocks fill it.
HardwareSpec small_gpu(std::uint32_t partitions) {
  HardwareSpec hw = a100();
  hw.sm.count = 4;
  hw.sm.sram_per_sm = Bytes(65536);
  hw.sm.sram_per_block = Bytes(65536);
  hw.l2.capacity = Bytes(65536);
  hw.l2.ways = 8;
  hw.l2.partitions = partitions;
  return hw;
}

void same_counts(const Prediction& a, const Prediction& b) {
  REQUIRE(a.kernels.size() == b.kernels.size());
  for (std::size_t k = 0; k < a.kernels.size(); ++k) {
    CHECK(a.kernels[k].l2_read_sectors == b.kernels[k].l2_read_sectors);
    CHECK(a.kernels[k].l2_write_sectors == b.kernels[k].l2_write_sectors);
    CHECK(a.kernels[k].l2_red_sectors == b.kernels[k].l2_red_sectors);
    CHECK(a.kernels[k].l2_fabric_read_sectors == b.kernels[k].l2_fabric_read_sectors);
    CHECK(a.kernels[k].dram_read.value == b.kernels[k].dram_read.value);
    CHECK(a.kernels[k].dram_write.value == b.kernels[k].dram_write.value);
  }
  CHECK(a.dirty_at_end.value == b.dirty_at_end.value);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("an observer changes no count, and the waves add up to the kernels' L2 traffic") {
  for (std::uint32_t partitions : {1u, 2u}) {
    for (const std::string name : {"naive", "flash1", "flash2"}) {
      for (Pass pass : {Pass::fwd, Pass::bwd}) {
        CAPTURE(partitions);
        CAPTURE(name);
        CAPTURE(pass);
        const ScheduleContext ctx = context(problem(512, 32, 1, 3), small_gpu(partitions), tiles(64, 64));
        const auto s = make_schedule(name, pass, ctx);
        for (bool warm : {false, true}) {
          GpuModelOptions plain;
          plain.warm = warm;
          WaveStats waves;
          GpuModelOptions seen = plain;
          seen.observer = &waves;
          const Prediction a = predict(*s, ctx, plain);
          const Prediction b = predict(*s, ctx, seen);
          same_counts(a, b);
          REQUIRE(waves.kernels().size() == b.kernels.size());  // the warm-up run is not observed
          for (std::size_t k = 0; k < b.kernels.size(); ++k) {
            std::uint64_t read = 0, write = 0, blocks = 0, hits = 0;
            for (const WaveL2& w : waves.kernels()[k].waves) {
              read += w.read_sectors;
              write += w.write_sectors;
              hits += w.read_hit_sectors;
              blocks += w.blocks;
              CHECK(w.read_hit_sectors <= w.read_sectors);
              CHECK(w.kv_read_sectors <= w.read_sectors);
              CHECK(w.kv_read_hit_sectors <= w.kv_read_sectors);
            }
            CHECK(read == b.kernels[k].l2_read_sectors + b.kernels[k].l2_red_sectors);
            CHECK(write == b.kernels[k].l2_write_sectors);
            CHECK(blocks == b.kernels[k].blocks);
            CHECK(waves.kernels()[k].waves.size() ==
                  (b.kernels[k].blocks + b.kernels[k].occupancy.concurrent - 1) / b.kernels[k].occupancy.concurrent);
            if (partitions == 1) {  // misses of one L2 are what DRAM reads, in sectors
              CHECK((read - hits) * 32 == b.kernels[k].dram_read.value);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("predict_trace: every step of flash1 and flash2 is one transfer of one block; the steps add up") {
  for (const std::string name : {"flash1", "flash2"}) {
    for (Pass pass : {Pass::fwd, Pass::bwd}) {
      CAPTURE(name);
      CAPTURE(pass);
      const ScheduleContext ctx = context(problem(512, 32), small_gpu(1), tiles(64, 64));
      const auto s = make_schedule(name, pass, ctx);
      const Trace t = trace_schedule(*s, ctx);
      const TracePrediction p = predict_trace(t, *s, ctx);
      REQUIRE(p.per_step);
      REQUIRE(p.steps.size() == t.transfers.size());
      std::uint64_t read = 0, miss = 0, write = 0;
      for (std::size_t k = 0; k < p.steps.size(); ++k) {
        const TransferL2& x = p.steps[k];
        read += x.read_sectors;
        miss += x.miss_sectors;
        write += x.write_sectors;
        // A load (or reduction) asks for its tile's sectors, a store writes them; nothing else at that step.
        const bool store = t.transfers[k].dir == Direction::sram_to_hbm;
        CHECK((store ? x.read_sectors : x.write_sectors) == 0);
        CHECK((store ? x.write_sectors : x.read_sectors) > 0);
      }
      CHECK(read == p.prediction.l2_read_sectors() + p.prediction.l2_red_sectors());
      CHECK(write == p.prediction.l2_write_sectors());
      CHECK(miss * 32 == p.prediction.dram_read().value);
      // The blocks cover the steps once each, in launch order, and sit on the SM of their slot.
      std::uint64_t next = 0;
      for (const KernelPlaces& k : p.kernels) {
        for (const BlockPlace& b : k.blocks) {
          CHECK(b.first_step == next);
          next += b.steps;
          CHECK(b.wave == b.block / k.concurrent);
          CHECK(b.sm == b.slot % k.sms);
          CHECK(b.slot < k.concurrent);
        }
      }
      CHECK(next == t.transfers.size());
    }
  }
}

TEST_CASE("predict_trace: standard attention's count is in whole matrices, so no per-step figures") {
  const ScheduleContext ctx = context(problem(256, 32), small_gpu(1), tiles(64, 64));
  const auto s = make_schedule("naive", Pass::fwd, ctx);
  const Trace t = trace_schedule(*s, ctx);
  const TracePrediction p = predict_trace(t, *s, ctx);
  CHECK_FALSE(p.per_step);
  CHECK(p.steps.empty());
  REQUIRE(p.kernels.size() == 3);
  CHECK(p.kernels[0].blocks.size() == 16);  // naive_qk: a 256 × 256 output in 64 × 64 tiles
}

TEST_CASE("iosim trace -f html: one page, nothing fetched, the JSON of -f json inside") {
  TempDir dir;
  const std::string page = dir.path() + "/t.html";
  const CliResult h = iosim::test::cli({"trace", "-c", "teaching", "--n", "128", "--d", "16", "--br", "32", "--bc", "32",
                           "--predict", "-f", "html", "-o", page});
  REQUIRE(h.code == 0);
  const std::string html = read_file(page);
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  for (const char* fetches : {"src=", "href=", "@import", "url(", "https:", "fetch(", "XMLHttpRequest"}) {
    CAPTURE(fetches);
    CHECK(html.find(fetches) == std::string::npos);
  }
  // The default schedules of the page: standard attention beside both flash schedules.
  const CliResult j = iosim::test::cli({"trace", "-c", "teaching", "--n", "128", "--d", "16", "--br", "32", "--bc", "32",
                           "--predict", "--schedule", "naive,flash1,flash2", "-f", "json"});
  REQUIRE(j.code == 0);
  const std::string open = "<script type=\"application/json\" id=\"trace-data\">\n";
  const std::size_t a = html.find(open);
  REQUIRE(a != std::string::npos);
  const std::size_t b = html.find("</script>", a);
  CHECK(html.substr(a + open.size(), b - a - open.size()) == j.out);  // no '<' in this JSON to escape
  const YAML::Node doc = parse_json(j.out);
  REQUIRE(doc["traces"].size() == 3);
  CHECK(doc["traces"][0]["predicted"]["per_step"].as<bool>() == false);
  CHECK(doc["traces"][2]["predicted"]["per_step"].as<bool>() == true);
  CHECK(doc["traces"][2]["transfers"][0]["l2"]["miss_sectors"].as<std::uint64_t>() > 0);
  CHECK(doc["traces"][2]["predicted"]["kernels"][0]["waves"][0]["blocks"].as<std::uint64_t>() == 4);
}

TEST_CASE("iosim trace -f html and --predict, bad input: one line on stderr and exit code 2") {
  const BadInput cases[] = {
      {{"trace", "-c", "teaching", "--n", "2048", "--d", "16", "--br", "16", "--bc", "16", "--schedule", "flash2",
        "-f", "html"},
       "above the page's limit of 20,000"},
      {{"trace", "-c", "teaching", "--n", "256", "--d", "16", "--predict"}, "--predict is for --format json or html"},
      {{"trace", "-c", "teaching", "--n", "256", "--d", "16", "--predict", "-f", "svg"}, "--predict is for"},
  };
  check_bad_inputs(cases);
}

TEST_CASE("iosim --predict -f json: waves_l2 per cold kernel, adding up to the kernel's L2 reads") {
  const CliResult r = iosim::test::cli({"-c", "teaching", "--n", "512", "--d", "16", "--heads", "2", "--br", "32",
                                        "--bc", "32", "--predict", "--l2", "exact", "-f", "json"});
  REQUIRE(r.code == 0);
  const YAML::Node schedules = parse_json(r.out)["runs"][0]["schedules"];
  REQUIRE(schedules.size() == 3);
  for (const YAML::Node& s : schedules) {
    for (const YAML::Node& k : s["predicted"]["cold"]["kernels"]) {
      std::uint64_t read = 0, blocks = 0;
      for (const YAML::Node& w : k["waves_l2"]) {
        read += w["read_sectors"].as<std::uint64_t>();
        blocks += w["blocks"].as<std::uint64_t>();
      }
      CHECK(read == k["lts__t_sectors_srcunit_tex_op_read"].as<std::uint64_t>() +
                        k["lts__t_sectors_srcunit_tex_op_red"].as<std::uint64_t>());
      CHECK(blocks == k["blocks"].as<std::uint64_t>());
    }
    CHECK_FALSE(s["predicted"]["warm"]["kernels"][0]["waves_l2"]);
  }
}
