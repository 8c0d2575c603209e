// --max-time, --max-memory (src/cli/limits.h) and the terminal's progress line (src/cli/progress_bar.h).
#include <doctest/doctest.h>

#include <chrono>
#include <sstream>
#include <string>

#include "sim/core/error.h"
#include "sim/core/progress.h"
#include "src/cli/limits.h"
#include "src/cli/progress_bar.h"
#include "support/cli_run.h"

using namespace iosim;
using namespace iosim::cli;
using iosim::test::CliResult;
using iosim::test::lines;

TEST_CASE("durations and sizes as the flags take them") {
  CHECK(parse_duration("90") == doctest::Approx(90));
  CHECK(parse_duration("90s") == doctest::Approx(90));
  CHECK(parse_duration("30m") == doctest::Approx(1800));
  CHECK(parse_duration("2h") == doctest::Approx(7200));
  CHECK(parse_duration("1h30m") == doctest::Approx(5400));
  CHECK(parse_duration("0.5s") == doctest::Approx(0.5));
  for (const char* bad : {"", "0", "5x", "m", "-3m", "3 m", "1e3"}) {
    CAPTURE(bad);
    CHECK(!parse_duration(bad));
  }
  CHECK(parse_bytes("16GiB") == (16ull << 30));
  CHECK(parse_bytes("16gib") == (16ull << 30));
  CHECK(parse_bytes("512MiB") == (512ull << 20));
  CHECK(parse_bytes("2G") == (2ull << 30));
  CHECK(parse_bytes("8GB") == 8000000000ull);
  CHECK(parse_bytes("1000") == 1000u);
  CHECK(parse_bytes("1.5KiB") == 1536u);
  for (const char* bad : {"", "0", "GiB", "16XB", "16GiBs", "-1G", "99999999999TiB"}) {
    CAPTURE(bad);
    CHECK(!parse_bytes(bad));
  }
  CHECK(resolve_limits("", "").seconds == doctest::Approx(600));
  CHECK(resolve_limits("", "").bytes == (8ull << 30));
  CHECK_THROWS_AS((void)resolve_limits("soon", ""), InputError);
  CHECK_THROWS_AS((void)resolve_limits("", "lots"), InputError);
}

TEST_CASE("a refusal names the estimate, its largest part and the flag with a value that allows it") {
  WorkEstimate e;
  e.seconds = 25 * 60;
  e.slowest = "executing naive fwd in fp32";
  e.bytes = 3ull << 30;
  e.largest = "executing naive bwd in fp64";
  const auto message = [&](const Limits& l) {
    try {
      enforce(e, l);
    } catch (const InputError& err) {
      return std::string(err.what());
    }
    return std::string();
  };
  const std::string slow = message(Limits{});
  CHECK(slow.find("about 25 min") != std::string::npos);
  CHECK(slow.find("executing naive fwd in fp32") != std::string::npos);
  CHECK(slow.find("--max-time 32m") != std::string::npos);  // 25 min and a quarter more, rounded up
  const std::string big = message(Limits{1e9, 1ull << 30});
  CHECK(big.find("about 3.0 GiB") != std::string::npos);
  CHECK(big.find("executing naive bwd in fp64") != std::string::npos);
  CHECK(big.find("--max-memory 4GiB") != std::string::npos);
  CHECK(message(Limits{1e9, 4ull << 30}).empty());
  CHECK(slow.find('\n') == std::string::npos);
}

TEST_CASE("the CLI refuses what exceeds its limits: exit 2, one line, nothing on stdout") {
  // An execution too large for the limit: one head of n = 4096, d = 4096 (batch and heads are not executed).
  const CliResult mem = iosim::test::cli({"-c", "a100", "--n", "4096", "--d", "4096", "--batch", "64", "--heads",
                                          "64", "--execute", "fp32", "--schedule", "naive,flash1", "--max-memory",
                                          "1GiB"});
  CHECK(mem.code == 2);
  CHECK(mem.out.empty());
  CHECK(lines(mem.err) == 1);
  CHECK(mem.err.find("--max-memory") != std::string::npos);
  const CliResult slow = iosim::test::cli({"-c", "a100", "--n", "4096", "--d", "4096", "--batch", "64", "--heads",
                                           "64", "--execute", "fp32", "--schedule", "naive,flash1", "--max-time", "10s"});
  CHECK(slow.code == 2);
  CHECK(lines(slow.err) == 1);
  CHECK(slow.err.find("--max-time") != std::string::npos);
  const CliResult tiles = iosim::test::cli({"tiles", "-c", "h200", "--n", "16384", "--d", "128", "--heads", "8",
                                            "--max-time", "1s"});
  CHECK(tiles.code == 2);
  CHECK(tiles.err.find("the tiles search") != std::string::npos);
  // Counting alone is never refused: it takes microseconds.
  CHECK(iosim::test::cli({"-c", "a100", "--n", "1048576", "--d", "128", "--max-time", "1s"}).code == 0);
}

namespace {
struct Recorder final : ProgressObserver {
  std::uint64_t calls = 0, last_done = 0, last_total = 0;
  void update(std::string_view, std::uint64_t done, std::uint64_t total) override {
    ++calls;
    last_done = done;
    last_total = total;
  }
};
}  // namespace

TEST_CASE("progress: reported to the installed observer, not from inside a ProgressMute") {
  Recorder r;
  ProgressObserver* before = set_progress_observer(&r);
  report_progress("a", 1, 4);
  {
    const ProgressMute mute;
    report_progress("inner", 2, 4);
  }
  report_progress("a", 3, 4);
  set_progress_observer(before);
  report_progress("a", 4, 4);
  CHECK(r.calls == 2);
  CHECK(r.last_done == 3);
  CHECK(r.last_total == 4);
}

TEST_CASE("progress: the line says what, how far and when it ends; a finished task clears it") {
  CHECK(progress_line("tiles: candidates", 30, 120, 10) == "tiles: candidates: 30 / 120 (25%) · 10 s · ETA 30 s");
  CHECK(progress_line("x", 1, 2, 150) == "x: 1 / 2 (50%) · 2 min 30 s · ETA 2 min 30 s");
  std::ostringstream err;
  {
    TerminalProgress bar(err, std::chrono::milliseconds(0), std::chrono::milliseconds(0));
    bar.update("GPU model, flash2_fwd: blocks", 5, 10);
    CHECK(err.str().find("GPU model, flash2_fwd: blocks: 5 / 10 (50%)") != std::string::npos);
    bar.update("GPU model, flash2_fwd: blocks", 10, 10);
    CHECK(err.str().ends_with("\r\x1b[K"));
  }
  std::ostringstream late;
  TerminalProgress slow(late, std::chrono::hours(1));
  slow.update("quick", 1, 2);
  CHECK(late.str().empty());  // what ends within its first `after` never shows
}
