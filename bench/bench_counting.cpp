// Benchmarks of the counting core:
//   count/<schedule>/<n>   one schedule counted with Walk::runs (what every run does)
//   events/<schedule>/<n>  the same schedule visited tile by tile (Walk::each): events per second
//   cli/main               the whole main command in-process, table rendered
// Run: build/bench/bench_counting --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include <sstream>

#include "sim/run.h"
#include "src/cli/app.h"
#include "src/config/hardware_config.h"

namespace {

using namespace iosim;

const HardwareSpec& a100() {
  static const HardwareSpec hw = config::load_hardware(std::string(IOSIM_CONFIG_DIR) + "/a100.yaml");
  return hw;
}

Problem problem(std::uint64_t n) {
  Problem p;
  p.n = p.n_kv = n;
  p.d = 64;
  return p;
}

const char* const kNames[] = {"naive", "flash1", "flash2"};

void count(benchmark::State& state) {
  const char* name = kNames[state.range(0)];
  const ScheduleContext ctx{problem(static_cast<std::uint64_t>(state.range(1))), a100(), {}, 0, {}};
  for (auto _ : state) {
    const ScheduleRun r = run_schedule(*make_schedule(name, Pass::fwd, ctx), ctx);
    benchmark::DoNotOptimize(r.ledger.total(Level::hbm).bytes().value);
  }
  state.SetLabel(name);
}
BENCHMARK(count)->ArgsProduct({{0, 1, 2}, {8192, 1 << 20}})->Unit(benchmark::kMicrosecond);

/// Counts events without storing them.
class Tally final : public EventSink {
 public:
  void on_transfer(const Transfer& t) override { bytes_ += t.tile.rows * t.tile.cols; ++events_; }
  void on_compute(const Compute&) override { ++events_; }
  std::uint64_t events_ = 0, bytes_ = 0;
};

void events(benchmark::State& state) {
  const char* name = kNames[state.range(0)];
  const ScheduleContext ctx{problem(static_cast<std::uint64_t>(state.range(1))), a100(), {}, 0, {}};
  const auto s = make_schedule(name, Pass::fwd, ctx);
  std::uint64_t total = 0;
  for (auto _ : state) {
    Tally t;
    s->emit(Emitter(t, Walk::each));
    total += t.events_;
    benchmark::DoNotOptimize(t.bytes_);
  }
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(total), benchmark::Counter::kIsRate);
  state.SetLabel(name);
}
BENCHMARK(events)->ArgsProduct({{1, 2}, {8192, 65536}})->Unit(benchmark::kMillisecond);

void cli_main(benchmark::State& state) {
  const std::string cfg = std::string(IOSIM_CONFIG_DIR) + "/a100.yaml";
  const char* argv[] = {"iosim", "--config", cfg.c_str(), "--n", "8192", "--d", "64"};
  for (auto _ : state) {
    std::ostringstream out, err;
    benchmark::DoNotOptimize(cli::run(7, argv, out, err));
  }
}
BENCHMARK(cli_main)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
