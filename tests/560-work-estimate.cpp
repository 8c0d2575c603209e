// Work estimates (sim/work_estimate.h): what a request will cost, before it runs.
#include <doctest/doctest.h>

#include <sys/resource.h>

#include <algorithm>
#include <string>
#include <utility>

#include "sim/gpu/gpu_model.h"
#include "sim/work_estimate.h"
#include "src/config/hardware_config.h"
#include "support/cli_run.h"
#include "support/fixtures.h"
#include "support/temp_file.h"
#include "support/toy_config.h"

using namespace iosim;
using iosim::test::a100;
using iosim::test::problem;

namespace {

ScheduleContext context(std::uint64_t n, std::uint64_t d, std::uint64_t heads = 1) {
  return ScheduleContext{problem(n, d, 1, heads), a100(), {}, 0, {}};
}

/// The tests' toy config at the model's limits: 4096 SMs, 256 blocks per SM, a 1 GiB L2. Its SRAM
/// of 2 KiB per SM takes tiles of a few sectors (d = 16), so the blocks record many small
/// transfers, and 8192 of them run at once.
std::string extreme_config() {
  std::string y = iosim::test::kToyConfig;
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"count: 2", "count: 4096"},
                                 {"max_blocks_per_sm: 32", "max_blocks_per_sm: 256"},
                                 {"size_bytes: 65536", "size_bytes: 1073741824"}}) {
    const std::size_t at = y.find(from);
    REQUIRE(at != std::string::npos);
    y.replace(at, from.size(), to);
  }
  return y;
}

Ledger count(const Schedule& s) {
  Ledger l(DType::fp16);
  s.emit(Emitter(l, Walk::runs));
  return l;
}

}  // namespace

TEST_CASE("counting alone costs nothing to estimate and is estimated as nothing") {
  const WorkEstimate e = estimate_runs({"naive", "flash1", "flash2"}, {Pass::fwd, Pass::bwd}, context(1 << 20, 128),
                                       RunOptions{});
  CHECK(e.seconds == 0);
  CHECK(e.bytes == WorkCosts{}.base_bytes);
}

TEST_CASE("a prediction's time is the schedule's sectors times the measured cost per sector") {
  const ScheduleContext ctx = context(4096, 64, 4);
  const auto s = make_schedule("flash2", Pass::fwd, ctx);
  // The sectors the model asks of the L2: on tiles this wide, the HBM bytes ÷ 32.
  const double sectors = replay_work(*s, ctx).sectors;
  CHECK(sectors == doctest::Approx(static_cast<double>(count(*s).total(Level::hbm).bytes().value) / 32).epsilon(0.01));
  WorkCosts c;
  c.ns_per_sector_tiled = 10;
  c.ns_per_event = 0;  // the per-event and per-record costs apart (the test at the model's limits)
  c.ns_per_record_byte = 0;
  const WorkEstimate one = estimate_prediction(*s, ctx, 1, c);
  CHECK(one.seconds == doctest::Approx(sectors * 10e-9));
  CHECK(estimate_prediction(*s, ctx, 3, c).seconds == doctest::Approx(3 * one.seconds));
  // Four times the heads, four times the sectors.
  const ScheduleContext more = context(4096, 64, 16);
  CHECK(estimate_prediction(*make_schedule("flash2", Pass::fwd, more), more, 1, c).seconds ==
        doctest::Approx(4 * one.seconds));
  // naive's stream of misses costs more per sector than a tiled schedule's hits.
  const auto naive = make_schedule("naive", Pass::fwd, ctx);
  CHECK(estimate_prediction(*naive, ctx, 1).seconds >
        static_cast<double>(count(*naive).total(Level::hbm).bytes().value) / 32 * WorkCosts{}.ns_per_sector_tiled * 1e-9);
}

TEST_CASE("an execution's memory: the issue's n = 4096, d = 4096 in fp32 needs 1.4 to 2 GiB, n² matrices for naive") {
  const ScheduleContext ctx = context(4096, 4096);
  ExecuteOptions o;
  const WorkEstimate naive = estimate_execution(*make_schedule("naive", Pass::fwd, ctx), ctx.problem, o);
  CHECK(naive.bytes > 1.4 * (1ull << 30));
  CHECK(naive.bytes < 2.0 * (1ull << 30));
  CHECK(naive.largest == "executing naive fwd in fp32");
  // Where d is small the n × n_kv matrices dominate naive, not the flash schedules.
  const ScheduleContext narrow = context(4096, 64);
  const auto e_naive = estimate_execution(*make_schedule("naive", Pass::fwd, narrow), narrow.problem, o);
  const auto e_flash = estimate_execution(*make_schedule("flash2", Pass::fwd, narrow), narrow.problem, o);
  CHECK(e_naive.bytes > 4 * 4096ull * 4096 * 4);
  CHECK(e_flash.bytes < e_naive.bytes / 4);
  // fp64 and a bug cost more time; the backward more than the forward.
  ExecuteOptions fp64 = o;
  fp64.precision = Precision::fp64;
  ExecuteOptions bug = o;
  bug.bug = Bug::no_rescale;
  const auto flash_fwd = make_schedule("flash2", Pass::fwd, narrow);
  CHECK(estimate_execution(*flash_fwd, narrow.problem, fp64).seconds > e_flash.seconds);
  CHECK(estimate_execution(*flash_fwd, narrow.problem, bug).seconds > e_flash.seconds);
  CHECK(estimate_execution(*make_schedule("flash2", Pass::bwd, narrow), narrow.problem, o).seconds > e_flash.seconds);
}

TEST_CASE("an execution's memory estimate against the peak of a real process (within 35%)") {
#ifdef IOSIM_SANITIZED
  // AddressSanitizer's shadow memory and quarantine inflate a process's peak: the estimate is of a
  // normal build's. The Release build runs this check.
  MESSAGE("skipped under the sanitizers: their shadow memory is not the program's");
  return;
#endif
  // naive, n = 2048, d = 128, fp32 and fp64: the n × n_kv matrices are most of it.
  for (const char* x : {"fp32", "fp64"}) {
    CAPTURE(x);
    const ScheduleContext ctx = context(2048, 128);
    ExecuteOptions o;
    o.precision = std::string(x) == "fp32" ? Precision::fp32 : Precision::fp64;
    const WorkEstimate e = estimate_execution(*make_schedule("naive", Pass::bwd, ctx), ctx.problem, o);
    rusage before{};
    ::getrusage(RUSAGE_CHILDREN, &before);
    const auto r = iosim::test::process(std::string("-c a100 --n 2048 --d 128 --schedule naive --pass bwd --execute ") +
                                        x + " -f csv");
    REQUIRE(r.code == 0);
    rusage after{};
    ::getrusage(RUSAGE_CHILDREN, &after);
    // ru_maxrss of the children is the largest child's peak so far, in KiB: this child's when it is the largest.
    const double peak = static_cast<double>(after.ru_maxrss) * 1024;
    if (after.ru_maxrss == before.ru_maxrss && before.ru_maxrss > 0) {
      MESSAGE("an earlier child was larger: peak not measurable here");
      continue;
    }
    CAPTURE(peak);
    CAPTURE(e.bytes);
    CHECK(static_cast<double>(e.bytes) > 0.65 * peak);
    CHECK(static_cast<double>(e.bytes) < 1.35 * peak);
  }
}

TEST_CASE("the tiles search: only candidates that pass its checks cost a prediction, spread over its threads") {
  const ScheduleContext ctx = context(2048, 64);
  TileSearchSpec spec;
  spec.threads = 1;
  const WorkEstimate one = estimate_tiles(ctx, spec);
  spec.threads = 4;
  CHECK(estimate_tiles(ctx, spec).seconds == doctest::Approx(one.seconds / 4));
  // Against the sum over every combination, rejected ones included, it is smaller.
  double all = 0;
  for (std::uint64_t br : spec.sizes) {
    for (std::uint64_t bc : spec.sizes) {
      ScheduleContext c = ctx;
      c.tiles = {br, bc};
      try {
        all += estimate_prediction(*make_schedule("flash2", Pass::fwd, c), c, 1).seconds * 8;
      } catch (const InputError&) {
      }
    }
  }
  CHECK(one.seconds > 0);
  CHECK(one.seconds < all);
}

TEST_CASE("a prediction is priced by the replay that will run: the fast one through the sampled sets") {
  // The largest prediction the performance targets name: flash2, batch 1, 32 heads, n 131072, d 128,
  // causal, forward and backward, on the H200's L2 (two partitions of 30 MiB). Its fast replay took
  // 23–25 s of CPU (results/performance-history.md).
  const HardwareSpec h200 = config::load_hardware(std::string(IOSIM_SOURCE_DIR) + "/configs/h200.yaml");
  Problem p = problem(131072, 128, 1, 32);
  p.causal = true;
  const ScheduleContext ctx{p, h200, {}, 0, {}};
  RunOptions exact;
  exact.predict = true;
  exact.gpu.l2 = L2Mode::exact;
  RunOptions fast = exact;
  fast.gpu.l2 = L2Mode::fast;
  const WorkEstimate e = estimate_runs({"flash2"}, {Pass::fwd, Pass::bwd}, ctx, exact);
  const WorkEstimate f = estimate_runs({"flash2"}, {Pass::fwd, Pass::bwd}, ctx, fast);
  CHECK(e.seconds > 600);  // over the default limit of 10 minutes
  CHECK(f.seconds < 120);  // well under it
  CHECK(f.seconds > 10);   // and not below what it takes
  CHECK(f.slowest.find("fast L2 replay") != std::string::npos);
  CHECK(e.slowest.find("exact L2 replay") != std::string::npos);
  CHECK(f.bytes < (256ull << 20));  // measured: 126 MiB at the peak (results/performance-history.md)
  // Sampling the sets cannot make any size cheap: n 1,048,576 and 64 heads is refused either way.
  Problem huge = problem(1048576, 128, 1, 64);
  huge.causal = true;
  CHECK(estimate_runs({"flash2"}, {Pass::fwd, Pass::bwd}, ScheduleContext{huge, h200, {}, 0, {}}, fast).seconds > 600);
}

TEST_CASE("the CLI: the default limit lets the fast replay of n 131072 through, and refuses the exact one or a far larger one") {
  const iosim::test::CliResult e = iosim::test::cli({"-c", "h200", "--predict", "--schedule", "flash2", "--heads", "32", "--n",
                                        "131072", "--d", "128", "--causal", "--pass", "fwdbwd", "--l2", "exact"});
  CHECK(e.code == 2);
  CHECK(e.out.empty());
  CHECK(std::count(e.err.begin(), e.err.end(), '\n') <= 1);
  CHECK(e.err.find("exact L2 replay") != std::string::npos);
  CHECK(e.err.find("--max-time") != std::string::npos);
  const iosim::test::CliResult h = iosim::test::cli({"-c", "h200", "--predict", "--schedule", "flash2", "--heads", "64", "--n",
                                        "1048576", "--d", "128", "--causal", "--pass", "fwdbwd"});
  CHECK(h.code == 2);
  CHECK(h.out.empty());
  CHECK(h.err.find("fast L2 replay") != std::string::npos);
  CHECK(h.err.find("--max-time") != std::string::npos);
  // The fast one is not run here (about 25 s): --max-time 1s refuses it, naming its estimate, which
  // lies under the default limit of 10 minutes.
  const iosim::test::CliResult f = iosim::test::cli({"-c", "h200", "--predict", "--schedule", "flash2", "--heads", "32", "--n",
                                        "131072", "--d", "128", "--causal", "--pass", "fwdbwd", "--max-time", "1s"});
  CAPTURE(f.err);
  CHECK(f.code == 2);
  CHECK(f.err.find("fast L2 replay") != std::string::npos);
  const auto at = f.err.find("about ");
  REQUIRE(at != std::string::npos);
  const double amount = std::stod(f.err.substr(at + 6));
  const std::string unit = f.err.substr(f.err.find(' ', at + 6) + 1, 3);
  REQUIRE((unit == "s (" || unit == "min"));
  CHECK(amount * (unit == "min" ? 60 : 1) < 600);
}

TEST_CASE("at the model's limits the exact replay's estimate counts every sector the model asks of the L2") {
  // The sectors are priced at 1 ns each: the estimate in ns is then at least the sectors the exact
  // replay counts (read, write, reduce). Tiles with rows narrower than a sector ask whole sectors:
  // naive's 4 × 4 tiles at d = 16 ask 7 times the HBM bytes ÷ 32, which an estimate from those bytes
  // priced as 7 times too few.
  const HardwareSpec hw = config::load_hardware(YAML::Load(extreme_config()), "extreme.yaml");
  WorkCosts c;
  c.ns_per_sector_streaming = c.ns_per_sector_tiled = 1;
  for (const std::string name : {"naive", "flash1", "flash2"}) {
    CAPTURE(name);
    const ScheduleContext ctx{problem(512, 16, 1, 2), hw, {}, 0, {}};
    const auto s = make_schedule(name, Pass::fwd, ctx);
    GpuModelOptions o;
    o.l2 = L2Mode::exact;
    const Prediction p = predict(*s, ctx, o);
    const auto counted = static_cast<double>(p.l2_read_sectors() + p.l2_write_sectors() + p.l2_red_sectors());
    CAPTURE(counted);
    CHECK(estimate_prediction(*s, ctx, 1, c).seconds * 1e9 >= counted);
  }
}

TEST_CASE("at the model's limits the exact replay's estimate holds its time and memory (a real process)") {
#ifdef IOSIM_SANITIZED
  MESSAGE("skipped under the sanitizers: they slow the replay and inflate its memory");
  return;
#endif
  // flash2, 16 heads of n = 4096, d = 16: 8192 blocks at once, each recording about 1500 events;
  // about 2 s of CPU, a third of it the kernel's zeroing of the records' fresh pages.
  const iosim::test::TempDir dir;
  const std::string path = dir.write("extreme.yaml", extreme_config());
  const HardwareSpec hw = config::load_hardware(YAML::Load(extreme_config()), path);
  const ScheduleContext ctx{problem(4096, 16, 1, 16), hw, {}, 0, {}};
  RunOptions opt;
  opt.predict = true;
  opt.gpu.l2 = L2Mode::exact;
  const WorkEstimate e = estimate_runs({"flash2"}, {Pass::fwd}, ctx, opt);
  rusage before{};
  ::getrusage(RUSAGE_CHILDREN, &before);
  const auto r = iosim::test::process("-c " + path +
                                      " --predict --l2 exact --schedule flash2 --n 4096 --d 16 --heads 16 -q -f json");
  REQUIRE(r.code == 0);
  rusage after{};
  ::getrusage(RUSAGE_CHILDREN, &after);
  const auto secs = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  // CPU time (user and system: the page faults are part of the work), not wall time: other work
  // on a shared machine stretches the wall time, much less the CPU time.
  const double cpu = secs(after.ru_utime) - secs(before.ru_utime) + secs(after.ru_stime) - secs(before.ru_stime);
  CAPTURE(cpu);
  CAPTURE(e.seconds);
  REQUIRE(cpu > 0.3);  // long enough to time
  // An upper bound, with room for the noise of a loaded machine on either side: at least 3/4 of
  // the CPU time (the estimate before the records and the small tiles were priced: 0.4 of it), and
  // at most 3 times it.
  CHECK(e.seconds >= 0.75 * cpu);
  CHECK(e.seconds <= 3 * cpu);
  if (after.ru_maxrss == before.ru_maxrss && before.ru_maxrss > 0) {
    MESSAGE("an earlier child was larger: peak not measurable here");
    return;
  }
  const double peak = static_cast<double>(after.ru_maxrss) * 1024;
  CAPTURE(peak);
  CAPTURE(e.bytes);
  CHECK(static_cast<double>(e.bytes) >= peak);
  CHECK(static_cast<double>(e.bytes) <= 2 * peak);
}

TEST_CASE("under a sliding window the replay's sectors are estimated as well as under the causal mask") {
  // Most blocks do the longest block's work once the window levels it off; the mean of the first and
  // the last block (the causal mask's rule) priced flash2's forward at about half of it for W = 32
  // tiles. The estimate over the counted sectors (HBM bytes ÷ 32) stays where the causal mask's is.
  const auto ratio = [](Pass pass, std::uint64_t window) {
    Problem p = problem(16384, 64);
    p.causal = true;
    p.window = window;
    const ScheduleContext ctx{p, a100(), {}, 0, {}};
    const auto s = make_schedule("flash2", pass, ctx);
    return replay_work(*s, ctx).sectors / (static_cast<double>(count(*s).total(Level::hbm).bytes().value) / 32);
  };
  for (Pass pass : {Pass::fwd, Pass::bwd}) {
    CAPTURE(name(pass));
    const double causal = ratio(pass, 0), windowed = ratio(pass, 4096);
    CAPTURE(causal);
    CHECK(windowed >= 0.95 * causal);
    CHECK(windowed <= 2 * causal);
  }
}
