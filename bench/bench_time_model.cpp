// Benchmarks of the time model alone (sim/timing: step profiles, the SM model, the block schedule) on a
// prediction the GPU model made once, so that its share of `--predict` can be set beside the L2 replay
// (docs/performance.md, "Time model: its share of `--predict`"). Its bound: at most 10% of
// --predict's run time.
//   time_model/<schedule>/<pass>/<n>   H200 config, batch 1, fp16; flash2 causal at n 131072, d 128, 32
//                                      heads (every block of a head distinct: the model's worst case)
// Run: build/bench/bench_time_model --benchmark_min_time=1
#include <benchmark/benchmark.h>

#include "sim/gpu/gpu_model.h"
#include "sim/timing/time_model.h"
#include "src/config/hardware_config.h"

namespace {

using namespace iosim;

const HardwareSpec& h200() {
  static const HardwareSpec hw = config::load_hardware(std::string(IOSIM_CONFIG_DIR) + "/h200.yaml");
  return hw;
}

void time_model(benchmark::State& state, const char* schedule, Pass pass, std::uint64_t heads, std::uint64_t n,
                std::uint64_t d, bool causal) {
  Problem p;
  p.heads = heads;
  p.n = p.n_kv = n;
  p.d = d;
  p.causal = causal;
  const ScheduleContext ctx{p, h200(), {}, 0, {}};
  const auto s = make_schedule(schedule, pass, ctx);
  GpuModelOptions o;
  o.l2 = L2Mode::fast;
  const Prediction counts = predict(*s, ctx, o);
  for (auto _ : state) benchmark::DoNotOptimize(predict_time(*s, ctx, counts, h200()).total_s);
}

void flash2_fwd(benchmark::State& st) { time_model(st, "flash2", Pass::fwd, 16, 8192, 64, false); }
void flash2_bwd(benchmark::State& st) { time_model(st, "flash2", Pass::bwd, 16, 8192, 64, false); }
void flash1_fwd(benchmark::State& st) { time_model(st, "flash1", Pass::fwd, 16, 8192, 64, false); }
void flash2_causal_fwd(benchmark::State& st) { time_model(st, "flash2", Pass::fwd, 32, 131072, 128, true); }
void flash2_causal_bwd(benchmark::State& st) { time_model(st, "flash2", Pass::bwd, 32, 131072, 128, true); }
BENCHMARK(flash2_fwd)->Name("time_model/flash2/fwd/8192")->Unit(benchmark::kMicrosecond);
BENCHMARK(flash2_bwd)->Name("time_model/flash2/bwd/8192")->Unit(benchmark::kMicrosecond);
BENCHMARK(flash1_fwd)->Name("time_model/flash1/fwd/8192")->Unit(benchmark::kMicrosecond);
BENCHMARK(flash2_causal_fwd)->Name("time_model/flash2/fwd/131072/causal")->Unit(benchmark::kMicrosecond);
BENCHMARK(flash2_causal_bwd)->Name("time_model/flash2/bwd/131072/causal")->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
