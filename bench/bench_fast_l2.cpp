// Benchmarks of the fast L2 replay (--l2 fast, the command line's default) at the shapes of its targets
// (docs/performance.md, "Fast L2 replay: speed"), fp16 on the H200 config, cold and
// warm as `--predict` runs them (predict_cold_warm), and the tile searches of `iosim tiles`:
//   naive/h16/n8192/d64                   a stream of misses: sampled sets
//   flash2/h32/n32768/d128                heads shorter than a wave: steps reused
//   flash2/h32/n131072/d128/causal/fwdbwd the largest target: skipped heads, sampled sets (and
//                                         its fwd and bwd alone)
//   tiles/h16/n8192/d64, tiles/h8/n16384/d128  every candidate through the fast replay, on all cores
//                                              (one replay per group of candidates that share one;
//                                              *_unshared: one per candidate)
// Targets: a prediction within 1 s, a search within 2 s. Run: build/bench/bench_fast_l2
// (--benchmark_filter=... for one; the n 131072 ones take about 10 s each).
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

ScheduleContext context(std::uint64_t heads, std::uint64_t n, std::uint64_t d, bool causal = false) {
  Problem p;
  p.heads = heads;
  p.n = p.n_kv = n;
  p.d = d;
  p.causal = causal;
  return ScheduleContext{p, h200(), {}, 0, {}};
}

void predict_fast(benchmark::State& state, const char* name, std::vector<Pass> passes, const ScheduleContext& ctx) {
  GpuModelOptions o;
  o.l2 = L2Mode::fast;
  for (auto _ : state) {
    for (Pass pass : passes) {
      const auto s = make_schedule(name, pass, ctx);
      const ColdWarm p = predict_cold_warm(*s, ctx, o);
      benchmark::DoNotOptimize(p.warm.dram_read().value);
    }
  }
}

void naive_h16_n8192_d64(benchmark::State& state) { predict_fast(state, "naive", {Pass::fwd}, context(16, 8192, 64)); }
void flash2_h32_n32768_d128(benchmark::State& state) {
  predict_fast(state, "flash2", {Pass::fwd}, context(32, 32768, 128));
}
void flash2_h32_n131072_d128_causal_fwdbwd(benchmark::State& state) {
  predict_fast(state, "flash2", {Pass::fwd, Pass::bwd}, context(32, 131072, 128, true));
}
// The largest target, one pass at a time: the forward (two fit passes and a warm run that follows
// the cold one from its second head) and the backward (one fit pass).
void flash2_h32_n131072_d128_causal_fwd(benchmark::State& state) {
  predict_fast(state, "flash2", {Pass::fwd}, context(32, 131072, 128, true));
}
void flash2_h32_n131072_d128_causal_bwd(benchmark::State& state) {
  predict_fast(state, "flash2", {Pass::bwd}, context(32, 131072, 128, true));
}
BENCHMARK(naive_h16_n8192_d64)->Unit(benchmark::kMillisecond);
BENCHMARK(flash2_h32_n32768_d128)->Unit(benchmark::kMillisecond);
BENCHMARK(flash2_h32_n131072_d128_causal_fwdbwd)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(flash2_h32_n131072_d128_causal_fwd)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(flash2_h32_n131072_d128_causal_bwd)->Unit(benchmark::kMillisecond)->Iterations(1);

void tiles_fast(benchmark::State& state, std::uint64_t heads, std::uint64_t n, std::uint64_t d, bool shared = true) {
  const ScheduleContext ctx = context(heads, n, d);
  TileSearchSpec spec;
  spec.gpu.l2 = L2Mode::fast;
  spec.share_replays = shared;
  for (auto _ : state) benchmark::DoNotOptimize(search_tiles(ctx, spec).size());
}
void tiles_h16_n8192_d64(benchmark::State& state) { tiles_fast(state, 16, 8192, 64); }
void tiles_h8_n16384_d128(benchmark::State& state) { tiles_fast(state, 8, 16384, 128); }
// The same searches with a replay per candidate (TileSearchSpec::share_replays off): the A/B of sharing.
void tiles_h16_n8192_d64_unshared(benchmark::State& state) { tiles_fast(state, 16, 8192, 64, false); }
void tiles_h8_n16384_d128_unshared(benchmark::State& state) { tiles_fast(state, 8, 16384, 128, false); }
// CPU time of every thread: the search runs its candidates on all cores.
BENCHMARK(tiles_h16_n8192_d64)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
BENCHMARK(tiles_h8_n16384_d128)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
BENCHMARK(tiles_h16_n8192_d64_unshared)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
BENCHMARK(tiles_h8_n16384_d128_unshared)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();

}  // namespace

BENCHMARK_MAIN();
