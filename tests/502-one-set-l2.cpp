// An L2 of one set is a legitimate (fully associative) cache: the model keeps it, and predict and
// tiles run on a config that has one. (Its set divider once computed 2^64 / 1 = 0 and indexed past the
// tags: SIGSEGV.)
#include <doctest/doctest.h>

#include "sim/memory/dram.h"
#include "sim/memory/l2_cache.h"
#include "sim/memory/partitioned_l2.h"
#include "support/cli_run.h"
#include "support/temp_file.h"

using iosim::Bytes;
using iosim::Dram;
using iosim::L2Cache;
using iosim::L2Spec;
using iosim::PartitionedL2;
using iosim::make_replacement;
using iosim::test::cli;
using iosim::test::CliResult;
using iosim::test::TempDir;

namespace {

/// configs/teaching.yaml with its L2 `size_bytes` and `ways` replaced.
std::string teaching_with_l2(std::uint64_t size, std::uint32_t ways) {
  std::ifstream in(std::string(IOSIM_SOURCE_DIR) + "/configs/teaching.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t l2 = text.find("\nl2:");
  REQUIRE(l2 != std::string::npos);
  const auto set = [&](const std::string& key, const std::string& value) {
    const std::size_t at = text.find("  " + key + ":", l2);
    REQUIRE(at != std::string::npos);
    text.replace(at, text.find('\n', at) - at, "  " + key + ": " + value);
  };
  set("size_bytes", std::to_string(size));
  set("ways", std::to_string(ways));
  return text;
}

}  // namespace

TEST_CASE("one set: every line shares it, LRU over all ways") {
  for (const std::uint32_t ways : {1u, 3u, 8u, 16u}) {
    CAPTURE(ways);
    Dram dram(32);
    L2Cache l2(L2Spec{Bytes(std::uint64_t{128} * ways), 128, 32, ways, 64}, make_replacement("lru"), dram);
    REQUIRE(l2.sets() == 1);
    for (std::uint64_t line = 0; line < 1000; line += 7) CHECK(l2.set_of(line) == 0);
    // `ways` lines fit: read twice, the second pass hits.
    for (int pass = 0; pass < 2; ++pass) {
      for (std::uint64_t line = 0; line < ways; ++line) l2.read(line * 977, 0xF, 0);
    }
    CHECK(l2.counters().read_miss_sectors == 4 * ways);
    CHECK(l2.counters().read_hit_sectors == 4 * ways);
    CHECK(l2.counters().evicted_lines == 0);
    // One line more, read in a cycle: LRU misses every time and evicts each line in turn.
    l2.reset_counters();
    for (int pass = 0; pass < 3; ++pass) {
      for (std::uint64_t line = 0; line <= ways; ++line) l2.write(line * 977, 0xF, 0);
    }
    CHECK(l2.counters().evicted_lines == 3 * (ways + 1) - ways);
    CHECK(l2.counters().written_back_sectors == 4 * l2.counters().evicted_lines);
    l2.flush();
    CHECK(l2.dirty_bytes() == Bytes(0));
    CHECK(dram.write_bytes() == Bytes(32 * l2.counters().written_back_sectors));
  }
}

TEST_CASE("one set per partition of a two-partition L2") {
  Dram dram(32);
  PartitionedL2 l2(L2Spec{Bytes(2 * 128 * 4), 128, 32, 4, 64, 2}, [] { return make_replacement("lru"); }, dram);
  for (std::uint64_t line = 0; line < 64; ++line) l2.read(line, 0xF, 0);
  CHECK(l2.counters().read_sectors == 64 * 4);
  l2.flush();
  CHECK(l2.dirty_bytes() == Bytes(0));
}

TEST_CASE("predict and tiles run on a config whose L2 has one set") {
  TempDir dir;
  const CliResult full = cli({"-c", "teaching", "--n", "256", "--d", "16", "--predict", "--schedule", "naive,flash1", "--format", "json"});
  REQUIRE(full.code == 0);
  const YAML::Node big = iosim::test::parse_json(full.out)["runs"][0]["schedules"];
  // 1024 bytes of 8 ways (one set of teaching.yaml's own 8 ways of 128-byte lines), 128 bytes of 1 way,
  // 384 bytes of 3 ways.
  for (const auto& [size, ways] : {std::pair{1024u, 8u}, std::pair{128u, 1u}, std::pair{384u, 3u}}) {
    CAPTURE(size);
    const std::string path = dir.write("one-set-" + std::to_string(size) + ".yaml", teaching_with_l2(size, ways));
    const CliResult run = cli({"-c", path, "--n", "256", "--d", "16", "--predict", "--schedule", "naive,flash1", "--format", "json"});
    CAPTURE(run.err);
    REQUIRE(run.code == 0);
    const YAML::Node small = iosim::test::parse_json(run.out)["runs"][0]["schedules"];
    REQUIRE(small.size() == big.size());
    for (std::size_t i = 0; i < small.size(); ++i) {
      CAPTURE(small[i]["name"].as<std::string>());
      const YAML::Node one = small[i]["predicted"], all = big[i]["predicted"];
      // A few lines of L2 keep less than 256 KiB: DRAM reads at least as much, and a warm run (the
      // same kernels again) finds next to nothing left, where 256 KiB keeps this problem whole.
      CHECK(one["cold"]["dram__bytes_read"].as<std::uint64_t>() >= all["cold"]["dram__bytes_read"].as<std::uint64_t>());
      CHECK(one["warm"]["dram__bytes_read"].as<std::uint64_t>() > 0);
      CHECK(one["cold"]["lts__t_sectors_srcunit_tex_op_read"].as<std::uint64_t>() ==
            all["cold"]["lts__t_sectors_srcunit_tex_op_read"].as<std::uint64_t>());
    }
    const CliResult tiles = cli({"tiles", "-c", path, "--n", "256", "--d", "16", "--top", "3"});
    CAPTURE(tiles.err);
    CHECK(tiles.code == 0);
    CHECK(tiles.out.find("rank") != std::string::npos);
  }
}
