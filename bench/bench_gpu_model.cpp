// Benchmarks of the GPU model:
//   predict/flash2   batch 1, 16 heads, n 8192, d 64, fp16 on the H200 config: target < 1 s
//   predict/naive    batch 1, 4 heads, n 8192: a stream of misses through the L2 (its slowest case)
//   tiles            the whole `iosim tiles --config h200.yaml --n 8192 --d 64` search (< 10 s)
//   */fast           the same through the fast L2 replay (sampled sets, skipped heads; --l2 fast)
// The counter "sectors/s" is SM-to-L2 sector accesses simulated per second (one core for predict).
// Run: build/bench/bench_gpu_model --benchmark_min_time=1
#include <benchmark/benchmark.h>

#include "sim/gpu/gpu_model.h"
#include "sim/tiles/search.h"
#include "src/config/hardware_config.h"

namespace {

using namespace iosim;

const HardwareSpec& h200() {
  static const HardwareSpec hw = config::load_hardware(std::string(IOSIM_CONFIG_DIR) + "/h200.yaml");
  return hw;
}

ScheduleContext context(std::uint64_t heads) {
  Problem p;
  p.heads = heads;
  p.n = p.n_kv = 8192;
  p.d = 64;
  return ScheduleContext{p, h200(), {}, 0, {}};
}

void predict_schedule(benchmark::State& state, const char* name, std::uint64_t heads, L2Mode mode = L2Mode::exact) {
  const ScheduleContext ctx = context(heads);
  const auto s = make_schedule(name, Pass::fwd, ctx);
  GpuModelOptions o;
  o.l2 = mode;
  double sectors = 0;
  for (auto _ : state) {
    const Prediction p = predict(*s, ctx, o);
    sectors += static_cast<double>(p.l2_read_sectors() + p.l2_write_sectors() + p.l2_red_sectors());
    benchmark::DoNotOptimize(p.dirty_at_end.value);
  }
  state.counters["sectors/s"] = benchmark::Counter(sectors, benchmark::Counter::kIsRate);
}

void predict_flash2(benchmark::State& state) { predict_schedule(state, "flash2", 16); }
void predict_naive(benchmark::State& state) { predict_schedule(state, "naive", 4); }
BENCHMARK(predict_flash2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(predict_naive)->Unit(benchmark::kMillisecond)->UseRealTime();
void predict_flash2_fast(benchmark::State& state) { predict_schedule(state, "flash2", 16, L2Mode::fast); }
void predict_naive_fast(benchmark::State& state) { predict_schedule(state, "naive", 4, L2Mode::fast); }
BENCHMARK(predict_flash2_fast)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(predict_naive_fast)->Unit(benchmark::kMillisecond)->UseRealTime();

void tiles(benchmark::State& state) {
  const ScheduleContext ctx = context(1);
  for (auto _ : state) benchmark::DoNotOptimize(search_tiles(ctx, TileSearchSpec{}).size());
}
BENCHMARK(tiles)->Unit(benchmark::kMillisecond)->UseRealTime();

void tiles_fast(benchmark::State& state) {
  const ScheduleContext ctx = context(1);
  TileSearchSpec spec;
  spec.gpu.l2 = L2Mode::fast;
  for (auto _ : state) benchmark::DoNotOptimize(search_tiles(ctx, spec).size());
}
BENCHMARK(tiles_fast)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
