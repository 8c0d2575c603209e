// `iosim sweep`: a sweep file's points, their records (the CLI's JSON for the same run, with a key),
// shards, resuming, merging, and bad input. The Ray engine, and a run killed for real, are in
// tests/sweep_engines.py (it needs processes and Ray).
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/cli/sweep_points.h"
#include "src/cli/sweep_records.h"
#include "src/config/sweep_spec.h"
#include "support/bad_input.h"
#include "support/temp_file.h"

namespace sw = iosim::cli;
namespace config = iosim::config;
using namespace iosim::test;

namespace {

// 2 hardware × (2 n × 2 masks + 1 problem × 2 passes) × 2 schedules × 2 tiles = 48 points.
const char* const kSpec = R"(description: a small sweep
hardware: [teaching, a100]
problems:
  - {n: [256, 1024], d: 64, mask: [none, causal]}
  - {n: 512, d: 64, heads: 4, kv_heads: 2, pass: [fwd, bwd]}
schedules: [naive, flash2]
tiles: [default, 16x16]
)";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::string> file_lines(const std::string& path) {
  std::vector<std::string> out;
  std::istringstream in(slurp(path));
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

/// The record without its key: `{"key":{…},` cut to `{`.
std::string without_key(const std::string& line) {
  const std::string_view key = *sw::record_key(line);
  return "{" + line.substr(7 + key.size() + 1);
}

}  // namespace

TEST_CASE("a sweep file expands into the product of its lists, each point once, in key order") {
  TempDir dir;
  const std::string spec = dir.write("s.yaml", kSpec);
  const std::vector<sw::SweepPoint> points = sw::expand(config::load_sweep_spec(spec));
  CHECK(points.size() == 48);
  std::set<std::string> keys;
  for (const sw::SweepPoint& p : points) keys.insert(p.key);
  CHECK(keys.size() == 48);
  for (std::size_t i = 1; i < points.size(); ++i) CHECK(sw::key_less(points[i - 1].key, points[i].key));

  // The same block twice under sweeps: the same points.
  std::string twice = "sweeps:\n";
  for (int k = 0; k < 2; ++k) {
    std::istringstream in(kSpec);
    bool first = true;
    for (std::string l; std::getline(in, l);) {
      if (l.rfind("description", 0) == 0) continue;
      twice += (first ? "  - " : "    ") + l + "\n";
      first = false;
    }
  }
  const std::vector<sw::SweepPoint> again = sw::expand(config::load_sweep_spec(dir.write("t.yaml", twice)));
  REQUIRE(again.size() == points.size());
  for (std::size_t i = 0; i < points.size(); ++i) CHECK(again[i].key == points[i].key);
}

TEST_CASE("keys order numbers as numbers, and the order is strict") {
  CHECK(sw::key_less(R"({"n":4096})", R"({"n":16384})"));
  CHECK_FALSE(sw::key_less(R"({"n":16384})", R"({"n":4096})"));
  CHECK(sw::key_less(R"({"hardware":"a100","n":1})", R"({"hardware":"a100-80gb","n":1})"));
  CHECK(sw::key_less(R"({"tile":"64x128"})", R"({"tile":"128x64"})"));
  CHECK_FALSE(sw::key_less(R"({"n":1})", R"({"n":1})"));
  CHECK(sw::key_less("x01", "x1") != sw::key_less("x1", "x01"));  // equal as numbers: bytes decide
}

TEST_CASE("a point's record is the program's JSON for the same run, with its key in front") {
  TempDir dir;
  const std::string spec = dir.write("s.yaml", R"(hardware: a100
problems: [{n: 512, n_kv: 1024, d: 64, heads: 4, kv_heads: 2, dtype: bf16, mask: causal, pass: fwdbwd}]
schedules: flash2
tiles: 64x128
warps: 4
predict: true
)");
  const std::string out = dir.path() + "/out.jsonl";
  const CliResult r = cli({"sweep", spec, "-o", out, "-q"});
  REQUIRE(r.code == 0);
  CHECK(r.err.empty());
  const std::vector<std::string> lines = file_lines(out);
  REQUIRE(lines.size() == 1);
  const CliResult direct = cli({"-c", "a100", "--n", "512", "--n-kv", "1024", "--d", "64", "--heads", "4", "--kv-heads",
                                "2", "--dtype", "bf16", "--causal", "--pass", "fwdbwd", "--schedule", "flash2", "--br",
                                "64", "--bc", "128", "--warps", "4", "--predict", "-f", "json"});
  REQUIRE(direct.code == 0);
  CHECK(without_key(lines[0]) == sw::minified(direct.out));
  CHECK(std::string(*sw::record_key(lines[0])) ==
        R"({"hardware":"a100","batch":1,"heads":4,"kv_heads":2,"n":512,"n_kv":1024,"d":64,"dtype":"bf16",)"
        R"("mask":"causal","pass":"fwdbwd","schedule":"flash2","tile":"64x128","warps":4,"stages":0,"splits":0,)"
        R"("top":0,"predict":true,"l2":"fast","l2_policy":"lru","launch_order":"x"})");
}

TEST_CASE("tiles: search records `iosim tiles`; tiles: menu is every tile of the search that fits") {
  TempDir dir;
  const std::string spec = dir.write("s.yaml", R"(sweeps:
  - {hardware: a100, problems: [{n: 256, d: 64}], schedules: flash2, tiles: search, top: 3}
  - {hardware: teaching, problems: [{n: 128, d: 16}], schedules: flash1, tiles: menu}
)");
  const std::string out = dir.path() + "/out.jsonl";
  REQUIRE(cli({"sweep", spec, "-o", out, "-q"}).code == 0);
  const std::vector<std::string> lines = file_lines(out);
  std::set<std::string> menu;
  std::size_t searches = 0;
  for (const std::string& l : lines) {
    const YAML::Node key = parse_json(std::string(*sw::record_key(l)));
    if (key["tile"].as<std::string>() == "search") {
      ++searches;
      const CliResult t = cli({"tiles", "-c", "a100", "--n", "256", "--d", "64", "--top", "3", "-f", "json"});
      REQUIRE(t.code == 0);
      CHECK(without_key(l) == sw::minified(t.out));
    } else {
      menu.insert(key["tile"].as<std::string>());
    }
  }
  CHECK(searches == 1);
  // The menu: each (B_r, B_c) of the search's sizes that `iosim --br --bc` runs, and no other.
  std::set<std::string> runs;
  for (const char* br : {"16", "32", "64", "128", "256"}) {
    for (const char* bc : {"16", "32", "64", "128", "256"}) {
      const CliResult r = cli({"-c", "teaching", "--n", "128", "--d", "16", "--schedule", "flash1", "--br", br, "--bc", bc});
      if (r.code == 0) runs.insert(std::string(br) + "x" + bc);
    }
  }
  CHECK(!runs.empty());
  CHECK(runs.size() < 25);  // teaching's 16 KiB of SRAM leaves some out
  CHECK(menu == runs);
}

TEST_CASE("three shards merged are the serial run, byte for byte, in any order of the files") {
  TempDir dir;
  const std::string spec = dir.write("s.yaml", kSpec);
  const std::string serial = dir.path() + "/serial.jsonl";
  REQUIRE(cli({"sweep", spec, "-o", serial, "-q"}).code == 0);
  CHECK(file_lines(serial).size() == 48);
  std::vector<std::string> shards;
  for (int k = 0; k < 3; ++k) {
    shards.push_back(dir.path() + "/shard" + std::to_string(k) + ".jsonl");
    REQUIRE(cli({"sweep", spec, "-o", shards.back(), "--shard", std::to_string(k) + "/3", "-q"}).code == 0);
    CHECK(file_lines(shards.back()).size() == 16);
  }
  const std::string merged = dir.path() + "/merged.jsonl";
  REQUIRE(cli({"sweep", "merge", shards[2], shards[0], shards[1], "-o", merged}).code == 0);
  CHECK(slurp(merged) == slurp(serial));
  // Merging again, with a file twice, changes nothing; --points of the pieces give the same records.
  REQUIRE(cli({"sweep", "merge", merged, shards[1], "-o", merged}).code == 0);
  CHECK(slurp(merged) == slurp(serial));
  const std::string pieces = dir.path() + "/pieces.jsonl";
  REQUIRE(cli({"sweep", spec, "-o", pieces, "--points", "40:48,0:20", "-q"}).code == 0);
  REQUIRE(cli({"sweep", spec, "-o", pieces, "--points", "20:40", "-q"}).code == 0);
  CHECK(slurp(pieces) == slurp(serial));  // resumed out of order: rewritten in the canonical order
}

TEST_CASE("a run resumes: points in the file are skipped, an incomplete last line runs again") {
  TempDir dir;
  const std::string spec = dir.write("s.yaml", kSpec);
  const std::string serial = dir.path() + "/serial.jsonl";
  REQUIRE(cli({"sweep", spec, "-o", serial, "-q"}).code == 0);
  const std::string full = slurp(serial);

  const std::vector<std::string> lines = file_lines(serial);
  std::string head;
  for (std::size_t i = 0; i < 10; ++i) head += lines[i] + "\n";
  head += lines[10].substr(0, lines[10].size() / 2);  // killed while writing record 11
  const std::string part = dir.write("part.jsonl", head);
  const CliResult r = cli({"sweep", spec, "-o", part});
  REQUIRE(r.code == 0);
  CHECK(r.err.find("cut an incomplete last line") != std::string::npos);
  CHECK(r.err.find("10 already in") != std::string::npos);
  CHECK(r.err.find("38 run") != std::string::npos);
  CHECK(slurp(part) == full);

  const CliResult again = cli({"sweep", spec, "-o", part});
  CHECK(again.err.find("48 already in " + part + ", 0 run") != std::string::npos);
  CHECK(slurp(part) == full);

  // --pending lists what is left as ranges of the canonical order.
  const std::string some = dir.write("some.jsonl", lines[0] + "\n" + lines[1] + "\n" + lines[5] + "\n");
  const CliResult p = cli({"sweep", spec, "-o", some, "--pending"});
  CHECK(p.code == 0);
  CHECK(p.out == "2:5,6:48\n");
}

TEST_CASE("merge refuses what it cannot merge: an incomplete file, two records for one point") {
  TempDir dir;
  const std::string spec = dir.write("s.yaml", kSpec);
  const std::string serial = dir.path() + "/serial.jsonl";
  REQUIRE(cli({"sweep", spec, "-o", serial, "-q"}).code == 0);
  const std::vector<std::string> lines = file_lines(serial);
  const std::string cut = dir.write("cut.jsonl", lines[0] + "\n" + lines[1].substr(0, 30));
  std::string changed = lines[0];
  changed.replace(changed.find("\"transfers\":"), 12, "\"transfers\":9");
  const std::string other = dir.write("other.jsonl", changed + "\n");
  const std::string junk = dir.write("junk.jsonl", lines[0] + "\n{\"not\": \"a record\"}\n");
  const BadInput cases[] = {
      {{"sweep", "merge", serial, cut, "-o", dir.path() + "/m.jsonl"}, "cut.jsonl: its last line is incomplete"},
      {{"sweep", "merge", serial, other, "-o", dir.path() + "/m.jsonl"}, "two different records for the point"},
      {{"sweep", "merge", junk, "-o", dir.path() + "/m.jsonl"}, "junk.jsonl:2: not a sweep record"},
      {{"sweep", spec, "-o", junk}, "junk.jsonl:2: not a sweep record"},
      {{"sweep", "merge", dir.path() + "/none.jsonl", "-o", "-"}, "none.jsonl: no such file"},
      {{"sweep", "merge", serial}, "sweep merge: give the output file"},
  };
  check_bad_inputs(cases);
  CHECK_FALSE(std::filesystem::exists(dir.path() + "/m.jsonl"));
}

TEST_CASE("bad sweep files and flags: one line, exit 2, nothing run") {
  TempDir dir;
  const std::string good = dir.write("good.yaml", kSpec);
  const auto spec = [&](const std::string& name, const std::string& text) { return dir.write(name, text); };
  const std::string out = dir.path() + "/out.jsonl";
  const BadInput cases[] = {
      {{"sweep", spec("a.yaml", "hardware: a100\nproblem: [{n: 1, d: 64}]\nschedules: flash2\n"), "-o", out},
       "unknown key 'problem' (did you mean 'problems'?)"},
      {{"sweep", spec("b.yaml", "problems: [{n: 1, d: 64}]\nschedules: flash2\n"), "-o", out}, "hardware: missing"},
      {{"sweep", spec("c.yaml", "hardware: a100\nproblems: [{n: 64, d: 64, mask: diagonal}]\nschedules: flash2\n"), "-o", out},
       "problems[0].mask: 'diagonal' is not one of none, causal"},
      {{"sweep", spec("d.yaml", "hardware: a100\nproblems: [{d: 64}]\nschedules: flash2\n"), "-o", out},
       "problems[0].n: missing"},
      {{"sweep", spec("e.yaml", "hardware: a100\nproblems: [{n: 64, d: 64}]\nschedules: flash2\ntiles: 64by64\n"), "-o", out},
       "tiles: '64by64' is not default, menu, search or a tile BRxBC"},
      {{"sweep", spec("f.yaml", "hardware: a100\nproblems: [{n: 64, d: 64, heads: 0}]\nschedules: flash2\n"), "-o", out},
       "problems[0].heads: expected a positive integer"},
      {{"sweep", spec("g.yaml", "hardware: a100\nproblems: [{n: 64, d: 64}]\nschedules: flash9\n"), "-o", out},
       "flash9"},
      {{"sweep", spec("h.yaml", "hardware: a100\nproblems: [{n: 64, d: 64, pass: bwd}]\nschedules: flashdecode\n"), "-o", out},
       "flashdecode"},
      {{"sweep", spec("i.yaml", "hardware: nosuchgpu\nproblems: [{n: 64, d: 64}]\nschedules: flash2\n"), "-o", out},
       "nosuchgpu"},
      {{"sweep", spec("j.yaml", "hardware: a100\nproblems: [{n: 64, d: 64}]\nschedules: flash2\ntiles: search\nwarps: 4\n"), "-o", out},
       "warps: the tile search tries every warp count"},
      {{"sweep", spec("k.yaml", "hardware: a100\nproblems: [{n: 64, d: 64}]\nschedules: naive\ntiles: search\n"), "-o", out},
       "naive has no tiles to search"},
      {{"sweep", spec("l.yaml", "hardware: a100\nproblems: [{scenario: nosuchscenario}]\nschedules: flash2\n"), "-o", out},
       "nosuchscenario"},
      {{"sweep", spec("m.yaml", "sweeps: [{hardware: a100}]\nhardware: a100\n"), "-o", out}, "unknown key 'hardware'"},
      {{"sweep", dir.path() + "/missing.yaml", "-o", out}, "missing.yaml"},
      {{"sweep", good}, "give the records file: -o OUT.jsonl"},
      {{"sweep", "-o", out}, "give the sweep file"},
      {{"sweep", good, "-o", out, "--shard", "3/3"}, "--shard must be k/N with 0 <= k < N (got '3/3'"},
      {{"sweep", good, "-o", out, "--shard", "1"}, "--shard must be k/N"},
      {{"sweep", good, "-o", out, "--shard", "a/b"}, "--shard must be k/N"},
      {{"sweep", good, "-o", out, "--shard", "0/0"}, "--shard must be k/N"},
      {{"sweep", good, "-o", out, "--shard", "-1/2"}, "--shard must be k/N"},
      {{"sweep", good, "-o", out, "--shard", "0/2/3"}, "--shard must be k/N"},
      {{"sweep", good, "-o", out, "--points", "0:49"}, "--points: '0:49' goes past the last point"},
      {{"sweep", good, "-o", out, "--points", "5:5"}, "--points: the range '5:5' is empty"},
      {{"sweep", good, "-o", out, "--points", "1,,2"}, "--points: '' is not an index"},
      {{"sweep", good, "-o", out, "--shard", "0/2", "--points", "1"}, "give --shard or --points, not both"},
      {{"sweep", good, "-o", out, "--workers", "2"}, "--workers and --chunk are for --engine ray"},
      {{"sweep", good, "-o", out, "--engine", "ray", "--shard", "0/2"}, "--engine ray runs every point itself"},
      {{"sweep", good, "-o", "-", "--engine", "ray"}, "--engine ray and --pending need a file"},
      {{"sweep", good, "-o", out, "--engine", "spark"}, "--engine"},
      {{"sweep", good, "-o", out, "--max-time", "soon"}, "--max-time"},
  };
  check_bad_inputs(cases);
  CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("a point over --max-time is refused before any point runs") {
  TempDir dir;
  const std::string spec = dir.write("s.yaml", R"(hardware: a100
problems: [{n: [256, 1048576], d: 64}]
schedules: naive
predict: true
)");
  const std::string out = dir.path() + "/out.jsonl";
  const CliResult r = cli({"sweep", spec, "-o", out, "--max-time", "1s"});
  CHECK(r.code == 2);
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find("n 1048576") != std::string::npos);
  CHECK(r.err.find("--max-time") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("--list makes every check a run makes: flags, hardware, problems") {
  TempDir dir;
  const std::string good = dir.write("good.yaml", kSpec);
  const std::string gpu = dir.write("gpu.yaml", "hardware: nosuchgpu\nproblems: [{n: 64, d: 64}]\nschedules: flash2\n");
  const std::string kv =
      dir.write("kv.yaml", "hardware: a100\nproblems: [{n: 64, d: 64, heads: 6, kv_heads: 4}]\nschedules: flash2\n");
  const BadInput cases[] = {
      {{"sweep", good, "--list", "--shard", "3/2"}, "--shard must be k/N with 0 <= k < N (got '3/2'"},
      {{"sweep", good, "--list", "--shard", "0/0"}, "--shard must be k/N"},
      {{"sweep", good, "--list", "--shard", "-1/2"}, "--shard must be k/N"},
      {{"sweep", good, "--list", "--shard", "a/b"}, "--shard must be k/N"},
      {{"sweep", good, "--list", "--points", "5:2"}, "--points: the range '5:2' is empty"},
      {{"sweep", gpu, "--list"}, "nosuchgpu"},
      {{"sweep", kv, "--list"}, "kv_heads"},
      {{"sweep", good, "--list", "--pending", "-o", dir.path() + "/o.jsonl"}, "give --list or --pending, not both"},
  };
  check_bad_inputs(cases);
  // With --shard, --list lists the shard's points, numbered as in the whole sweep.
  const CliResult r = cli({"sweep", good, "--list", "--shard", "1/3"});
  REQUIRE(r.code == 0);
  CHECK(lines(r.out) == 16);
  CHECK(r.out.rfind("1\t{", 0) == 0);
}

TEST_CASE("a sweep whose lists multiply past the limits is refused before a point is built, with the count") {
  TempDir dir;
  // 1000 × 1000 × 1000 = 10^9 points in a file of a few kilobytes.
  std::string list = "[";
  for (int i = 1; i <= 1000; ++i) list += std::to_string(i) + (i < 1000 ? ", " : "]");
  const std::string spec = dir.write("huge.yaml", "hardware: teaching\nproblems: [{n: " + list + ", d: " + list +
                                                      ", heads: " + list + "}]\nschedules: flash2\n");
  // As a process under `timeout`: a regression would take gigabytes and minutes, not hang the suite.
  const CliResult r = process_with_env("timeout 60", "sweep " + spec + " --list");
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find("1000000000 points") != std::string::npos);
  CHECK(r.err.find("--max-memory") != std::string::npos);
  // Lists whose product leaves 64 bits.
  std::string many = "hardware: teaching\nproblems: [{n: " + list + ", d: " + list + ", heads: " + list + ", batch: " +
                     list + ", kv_heads: " + list + ", n_kv: " + list + ", dtype: [fp16, fp32, bf16, fp8]}]\n" +
                     "schedules: flash2\ntiles: [menu, default]\nwarps: " + list + "\nstages: [1, 2, 3, 4, 5, 6, 7, 8]\n";
  const CliResult o = process_with_env("timeout 60", "sweep " + dir.write("over.yaml", many) + " --list");
  CHECK(o.code == 2);
  CHECK(lines(o.err) == 1);
  CHECK(o.err.find("more than 2^64 points") != std::string::npos);
  // The bound is counted, not built: it also covers --max-time.
  const CliResult t = cli({"sweep", spec, "--list", "--max-memory", "4000GiB", "--max-time", "1m"});
  CHECK(t.code == 2);
  CHECK(t.err.find("1000000000 points") != std::string::npos);
  CHECK(t.err.find("--max-time") != std::string::npos);
}

TEST_CASE("an incomplete record (a key without its fields) runs again; merge refuses it with its line") {
  TempDir dir;
  const std::string spec = dir.write("s.yaml", kSpec);
  const std::string serial = dir.path() + "/serial.jsonl";
  REQUIRE(cli({"sweep", spec, "-o", serial, "-q"}).code == 0);
  const std::string full = slurp(serial);
  const std::vector<std::string> lines = file_lines(serial);
  std::string text;
  for (std::size_t i = 0; i < 10; ++i) text += lines[i] + "\n";
  text += "{\"key\":" + std::string(*sw::record_key(lines[10])) + "}\n";  // a key alone
  text += lines[11].substr(0, lines[11].size() - 1) + "\n";           // a record cut short, then a newline
  for (std::size_t i = 12; i < 20; ++i) text += lines[i] + "\n";
  const std::string part = dir.write("part.jsonl", text);

  const sw::RecordFile f = sw::parse_records(text, "part.jsonl");
  CHECK(f.lines.size() == 18);
  CHECK(f.incomplete_lines == std::vector<std::size_t>{11, 12});

  const CliResult m = cli({"sweep", "merge", part, "-o", dir.path() + "/m.jsonl"});
  CHECK(m.code == 2);
  CHECK(m.err.find("part.jsonl:11: an incomplete record") != std::string::npos);

  const CliResult r = cli({"sweep", spec, "-o", part});
  REQUIRE(r.code == 0);
  CHECK(r.err.find("2 incomplete record(s)") != std::string::npos);
  CHECK(r.err.find("18 already in") != std::string::npos);
  CHECK(r.err.find("30 run") != std::string::npos);
  CHECK(slurp(part) == full);
}

TEST_CASE("one writer per records file: a second is refused, or waits with --wait") {
  TempDir dir;
  const std::string spec = dir.write("s.yaml", kSpec);
  const std::string serial = dir.path() + "/serial.jsonl";
  REQUIRE(cli({"sweep", spec, "-o", serial, "-q"}).code == 0);
  const std::string out = dir.write("out.jsonl", file_lines(serial)[0] + "\n");

  const int fd = ::open(out.c_str(), O_RDWR);
  REQUIRE(fd >= 0);
  REQUIRE(::flock(fd, LOCK_EX) == 0);  // another run holds the file
  const BadInput cases[] = {
      {{"sweep", spec, "-o", out}, "out.jsonl: another iosim sweep is writing it"},
      {{"sweep", spec, "-o", out, "--pending"}, "another iosim sweep is writing it"},
      {{"sweep", "merge", out, "-o", "-"}, "another iosim sweep is writing it"},
      {{"sweep", "merge", serial, "-o", out}, "another iosim sweep is writing it"},
  };
  check_bad_inputs(cases);
  CHECK(file_lines(out).size() == 1);

  std::thread holder([fd] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ::close(fd);  // releases the lock
  });
  const CliResult r = cli({"sweep", spec, "-o", out, "--wait", "-q"});
  holder.join();
  CHECK(r.code == 0);
  CHECK(slurp(out) == slurp(serial));
  const CliResult stdout_wait = cli({"sweep", spec, "-o", "-", "--wait"});
  CHECK(stdout_wait.code == 2);
  CHECK(stdout_wait.err.find("--wait is for a records file") != std::string::npos);
}

TEST_CASE("special files as sweep or records files: one line naming what they are, never a hang") {
  TempDir dir;
  const std::string spec = dir.write("s.yaml", kSpec);
  const std::string fifo = dir.path() + "/fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::string fifo_spec = dir.path() + "/fifo.yaml";
  REQUIRE(::mkfifo(fifo_spec.c_str(), 0600) == 0);
  struct Case {
    std::string args;
    const char* says;
  };
  const Case cases[] = {
      {"sweep " + spec + " -o " + fifo, "fifo: is a FIFO, not a regular file"},
      {"sweep " + fifo_spec + " --list", "fifo.yaml: is a FIFO, not a regular file"},
      {"sweep merge " + fifo + " -o -", "fifo: is a FIFO, not a regular file"},
      {"sweep merge " + spec + " -o " + fifo, "fifo: is a FIFO"},
      {"sweep " + spec + " -o /dev/zero", "/dev/zero: is a character device, not a regular file"},
      {"sweep " + spec + " -o /dev/urandom", "/dev/urandom: is a character device"},
      {"sweep " + spec + " -o /dev/full", "/dev/full: is a character device"},
      {"sweep " + spec + " -o /dev/zero --pending", "/dev/zero: is a character device"},
      {"sweep merge /dev/zero -o -", "/dev/zero: is a character device"},
      {"sweep merge /dev/urandom -o -", "/dev/urandom: is a character device"},
      {"sweep " + spec + " -o " + dir.path(), "is a directory, not a regular file"},
  };
  for (const Case& c : cases) {
    // As a process under `timeout` (and a memory limit, where the sanitizers' reserved address space
    // does not exceed it): a regression hangs or grows, the test fails.
#ifdef IOSIM_SANITIZED
    const CliResult r = process_with_env("timeout 20", c.args);
#else
    const CliResult r = process_with_env("ulimit -v 4000000; timeout 20", c.args);
#endif
    CAPTURE(c.args);
    CAPTURE(r.err);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(lines(r.err) == 1);
    CHECK(r.err.find(c.says) != std::string::npos);
  }
}

TEST_CASE("a records file larger than half of --max-memory is refused before it is read") {
  TempDir dir;
  const std::string spec = dir.write("s.yaml", kSpec);
  const std::string serial = dir.path() + "/serial.jsonl";
  REQUIRE(cli({"sweep", spec, "-o", serial, "-q"}).code == 0);
  const std::vector<std::string> lines = file_lines(serial);
  // --max-memory 9MiB: the sweep's own 48 points fit (8 MiB and a little), a records file of more than
  // 4.5 MiB does not.
  std::string big;
  while (big.size() <= (9u << 20) / 2) big += lines[0] + "\n";
  const std::string two = dir.write("two.jsonl", big);
  const BadInput cases[] = {
      {{"sweep", spec, "-o", two, "--max-memory", "9MiB"}, "two.jsonl: a records file of"},
      {{"sweep", spec, "-o", two, "--pending", "--max-memory", "9MiB"},
       "more than the 4718592 it may be (half of --max-memory"},
      {{"sweep", "merge", two, "-o", "-", "--max-memory", "9MiB"}, "more than the 4718592 it may be"},
      {{"sweep", "merge", two, "-o", "-", "--max-memory", "lots"}, "--max-memory must be a positive size"},
  };
  check_bad_inputs(cases);
  CHECK(slurp(two) == big);
}

TEST_CASE("sweep windows: a window key per point, refused beside mask none") {
  TempDir dir;
  const std::string spec = dir.write("w.yaml", "hardware: teaching\nproblems: [{n: 256, d: 16, mask: causal, window: [16, 64]},"
                                               " {n: 256, d: 16, mask: causal}]\nschedules: flash2\n");
  const std::vector<sw::SweepPoint> points = sw::expand(config::load_sweep_spec(spec));
  REQUIRE(points.size() == 3);
  std::set<std::uint64_t> windows;
  for (const sw::SweepPoint& p : points) {
    windows.insert(p.window);
    // A point without a window keeps the key it had before windows existed.
    CHECK((p.key.find("\"window\":") != std::string::npos) == (p.window != 0));
    CHECK((sw::flags_of(p).window.value_or(0)) == static_cast<std::int64_t>(p.window));
  }
  CHECK(windows == std::set<std::uint64_t>{0, 16, 64});
  const std::string out = dir.path() + "/out.jsonl";
  const BadInput cases[] = {
      {{"sweep", dir.write("a.yaml", "hardware: a100\nproblems: [{n: 64, d: 64, window: 8}]\nschedules: flash2\n"), "-o", out},
       "problems[0].window: needs mask: causal"},
      {{"sweep", dir.write("b.yaml", "hardware: a100\nproblems: [{n: 64, d: 64, mask: [none, causal], window: 8}]\nschedules: flash2\n"),
        "-o", out},
       "problems[0].window: needs mask: causal"},
      {{"sweep", dir.write("c.yaml", "hardware: a100\nproblems: [{n: 64, d: 64, mask: causal, window: 0}]\nschedules: flash2\n"),
        "-o", out},
       "problems[0].window: expected a positive integer"},
  };
  check_bad_inputs(cases);
}

TEST_CASE("sweep pages: a page key per paged point, the flags of the point, refused where they cannot apply") {
  TempDir dir;
  const std::string spec = dir.write("p.yaml", "hardware: teaching\nproblems: [{n: 1, n_kv: 1024, d: 16, page_size: [16, 64],"
                                               " page_order: [contiguous, random, 7]}, {n: 1, n_kv: 1024, d: 16}]\n"
                                               "schedules: flashdecode\n");
  const std::vector<sw::SweepPoint> points = sw::expand(config::load_sweep_spec(spec));
  REQUIRE(points.size() == 7);  // 2 page sizes × 3 orders, and one contiguous cache
  std::set<std::string> orders;
  for (const sw::SweepPoint& p : points) {
    CHECK((p.key.find("\"page_size\":") != std::string::npos) == (p.page_size != 0));
    const sw::ProblemFlags f = sw::flags_of(p);
    CHECK(f.page_size.value_or(0) == static_cast<std::int64_t>(p.page_size));
    CHECK(f.page_order == p.page_order);
    orders.insert(p.page_order);
  }
  CHECK(orders == std::set<std::string>{"", "contiguous", "random", "7"});
  const std::string out = dir.path() + "/out.jsonl";
  const BadInput cases[] = {
      {{"sweep", dir.write("a.yaml", "hardware: a100\nproblems: [{n: 64, d: 64, page_order: random}]\nschedules: flash2\n"),
        "-o", out},
       "problems[0].page_order: needs page_size"},
      {{"sweep", dir.write("b.yaml", "hardware: a100\nproblems: [{n: 64, d: 64, page_size: 16, page_order: sorted}]\n"
                                     "schedules: flash2\n"),
        "-o", out},
       "problems[0].page_order: 'sorted' is not contiguous, random or an integer seed"},
  };
  check_bad_inputs(cases);
}
