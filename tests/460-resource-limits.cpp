// Hardware beyond what the model simulates is refused when the config is read, before any work:
// SMs, blocks per SM, the L2's bytes and lines (ways × sets), and its partitions. Whatever still
// escapes a command (out of memory, a library's exception) is one line and exit 2, not an abort.
#include <doctest/doctest.h>

#include <new>
#include <stdexcept>
#include <streambuf>
#include <string>

#include "src/cli/app.h"
#include "src/config/hardware_config.h"
#include "support/bad_input.h"
#include "support/temp_file.h"
#include "support/toy_config.h"

using iosim::test::BadInput;
using iosim::test::check_bad_inputs;
using iosim::test::CliResult;
using iosim::test::TempDir;

namespace {

std::string toy(std::string s, const std::string& from, const std::string& to) {
  const std::size_t at = s.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, from);
  return s.replace(at, from.size(), to);
}
std::string toy(const std::string& from, const std::string& to) { return toy(iosim::test::kToyConfig, from, to); }

}  // namespace

TEST_CASE("SM counts, blocks per SM and L2 sizes beyond the model's limits") {
  TempDir dir;
  const std::string sm_max = dir.write("sm-max.yaml", toy("count: 2", "count: 4294967295"));
  const std::string sm_1e8 = dir.write("sm-1e8.yaml", toy("count: 2", "count: 100000000"));
  const std::string sm_4097 = dir.write("sm-4097.yaml", toy("count: 2", "count: 4097"));
  const std::string blocks = dir.write("blocks.yaml", toy("max_blocks_per_sm: 32", "max_blocks_per_sm: 100000"));
  const std::string l2_40 = dir.write("l2-40.yaml", toy("size_bytes: 65536", "size_bytes: 1099511627776"));
  const std::string l2_36 = dir.write("l2-36.yaml", toy("size_bytes: 65536", "size_bytes: 68719476736"));
  // 512 MiB of 16-byte lines (2-byte sectors): under 1 GiB, but 2^25 lines.
  const std::string lines = dir.write(
      "lines.yaml", toy(toy(toy("size_bytes: 65536", "size_bytes: 536870912"), "line_bytes: 128", "line_bytes: 16"),
                        "sector_bytes: 32", "sector_bytes: 2"));
  const std::string halves = dir.write(
      "halves.yaml", toy(toy("size_bytes: 65536", "size_bytes: 2048"), "partitions: 1", "partitions: 2"));
  const BadInput cases[] = {
      {{"-c", sm_max, "--n", "64", "--d", "16", "--predict"}, "sm.count: at most 4096 SMs are modelled, got 4294967295"},
      {{"-c", sm_1e8, "--n", "64", "--d", "16", "--predict"}, "sm.count: at most 4096 SMs are modelled, got 100000000"},
      {{"-c", sm_4097, "--n", "64", "--d", "16"}, "sm.count: at most 4096"},
      {{"-c", blocks, "--n", "64", "--d", "16"}, "sm.max_blocks_per_sm: at most 256 blocks per SM"},
      {{"-c", l2_40, "--n", "64", "--d", "16", "--predict"}, "l2.size_bytes: at most 1073741824 bytes (1 GiB)"},
      {{"-c", l2_36, "--n", "64", "--d", "16", "--predict"}, "got 68719476736"},
      {{"-c", lines, "--n", "64", "--d", "16"}, "l2.size_bytes: at most 16777216 lines"},
      {{"-c", halves, "--n", "64", "--d", "16"}, "whole number of sets (line_bytes × ways) in each of the 2 partitions"},
  };
  check_bad_inputs(cases);
}

TEST_CASE("the largest hardware within the limits loads and predicts") {
  TempDir dir;
  const std::string big = dir.write(
      "big.yaml", toy(toy(toy("count: 2", "count: 4096"), "size_bytes: 65536", "size_bytes: 1073741824"),
                      "max_blocks_per_sm: 32", "max_blocks_per_sm: 256"));
  const CliResult r = iosim::test::cli({"-c", big, "--n", "64", "--d", "16", "--predict", "--schedule", "flash2"});
  CAPTURE(r.err);
  CHECK(r.code == 0);
}

TEST_CASE("as a process: the configs that aborted with std::bad_alloc now exit 2 with one line") {
  TempDir dir;
  const std::string sm = dir.write("sm.yaml", toy("count: 2", "count: 4294967295"));
  const std::string l2 = dir.write("l2.yaml", toy("size_bytes: 65536", "size_bytes: 1099511627776"));
  for (const std::string& path : {sm, l2}) {
    const CliResult r = iosim::test::process("-c " + path + " --n 64 --d 16 --predict");
    CAPTURE(r.err);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(iosim::test::lines(r.err) == 1);
  }
}

namespace {

/// A stream buffer that throws `E` on the first write: stands for an exception from deep inside a
/// command (out of memory, a library's logic_error) that no check before it caught.
template <class E>
class Throwing : public std::streambuf {
 protected:
  int_type overflow(int_type) override { throw E("from the output"); }
  std::streamsize xsputn(const char*, std::streamsize) override { throw E("from the output"); }
};

class NoMemory : public std::bad_alloc {
 public:
  explicit NoMemory(const char*) {}
};

template <class E>
CliResult run_with_throwing_output() {
  Throwing<E> buf;
  std::ostream out(&buf);
  out.exceptions(std::ios::badbit);  // the stream rethrows what its buffer threw
  std::ostringstream err;
  const char* argv[] = {"iosim", "-c", "teaching", "--n", "64", "--d", "16"};
  CliResult r;
  r.code = iosim::cli::run(7, argv, out, err);
  r.err = err.str();
  return r;
}

}  // namespace

TEST_CASE("std::bad_alloc and any std::exception escaping a command: one line, exit 2") {
  const CliResult oom = run_with_throwing_output<NoMemory>();
  CHECK(oom.code == 2);
  CHECK(iosim::test::lines(oom.err) == 1);
  CHECK(oom.err.find("iosim: error: out of memory") != std::string::npos);
  const CliResult logic = run_with_throwing_output<std::logic_error>();
  CHECK(logic.code == 2);
  CHECK(iosim::test::lines(logic.err) == 1);
  CHECK(logic.err.find("iosim: error: from the output") != std::string::npos);
}

TEST_CASE("list flags: their product is bounded before any problem is built") {
  std::string many;
  for (int i = 1; i <= 1000; ++i) {
    if (i > 1) many += ',';
    many += std::to_string(16 * i);
  }
  const std::string hundred = many.substr(0, many.find(",1616"));  // 16 … 1600, 100 values
  const BadInput cases[] = {
      // Once 3.0 GB of memory and 171 MB written, exit 0, whatever --max-memory and --max-time said.
      {{"-c", "teaching", "--n", "64", "--d", "16", "--br", many, "--bc", many},
       "--br (1000 values) × --bc (1000 values) make more than 10000 points"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--br", many, "--bc", many, "--max-memory", "1GiB", "--max-time", "2s"},
       "make more than 10000 points"},
      {{"-c", "teaching", "--n", hundred, "--d", hundred, "--br", "16,32"}, "make more than 10000 points"},
  };
  check_bad_inputs(cases);
  // Within the cap a grid still runs: 100 × 2 points.
  const CliResult r = iosim::test::cli({"-c", "teaching", "--n", hundred, "--d", "16,32", "--br", "16", "--bc", "16",
                                        "--schedule", "flash2", "-f", "csv"});
  CAPTURE(r.err);
  CHECK(r.code == 0);
  CHECK(iosim::test::lines(r.out) == 201);
}
