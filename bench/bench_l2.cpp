// Benchmarks of the L2 model alone, without schedules or thread blocks: sector accesses handled per
// second on one core, on the H200's L2 (configs/h200.yaml: 60 MiB, 16 ways, LRU), with the prefetch
// hints the GPU model gives it.
//   stream     256 MiB of lines written, then read back, by SMs of alternating partitions: every
//              request misses, and every fill evicts a line (dirty ones are written back)
//   resident   16 MiB of lines read 16 times over: all but the first pass hit
//   unified    `stream` through one unpartitioned L2 of the same size
//   strided    `stream` in the order of a tile's rows: 128 lines apart (a row of 8192 fp16 scores), so
//              that consecutive requests land in distant sets and only the prefetch hints hide the
//              host's memory latency
// Run: build/bench/bench_l2 --benchmark_min_time=1
#include <benchmark/benchmark.h>

#include <cstdint>

#include "sim/memory/dram.h"
#include "sim/memory/l2_cache.h"
#include "sim/memory/partitioned_l2.h"
#include "src/config/hardware_config.h"

namespace {

using namespace iosim;

const L2Spec& h200_l2() {
  static const L2Spec spec = config::load_hardware(std::string(IOSIM_CONFIG_DIR) + "/h200.yaml").l2;
  return spec;
}

constexpr std::uint32_t kAllSectors = 0xF;
constexpr std::uint64_t kAhead = 8;         // as the GPU model hints
constexpr std::uint64_t kBlockLines = 256;  // lines one SM asks for before the next SM's turn

/// The i-th line of a sweep over `count` lines: in order, or by rows of kRowLines lines (count is a
/// multiple of kRowLines).
constexpr std::uint64_t kRowLines = 128;
std::uint64_t nth(std::uint64_t i, std::uint64_t count, bool strided) {
  if (!strided) return i;
  const std::uint64_t rows = count / kRowLines;
  return (i % rows) * kRowLines + i / rows;
}

/// Request `r` of lines [0, count), kBlockLines at a time by SMs 0 and 1 in turn (of alternating
/// partitions, when there are two).
void sweep(MemoryLevel& l2, Request r, std::uint64_t count, bool strided) {
  const auto sm = [](std::uint64_t i) { return static_cast<std::uint32_t>(i / kBlockLines % 2); };
  for (std::uint64_t i = 0; i < count; ++i) {
    if (i + kAhead < count) l2.prefetch(nth(i + kAhead, count, strided), r, sm(i + kAhead));
    l2.request(r, nth(i, count, strided), kAllSectors, sm(i));
  }
}

void run(benchmark::State& state, bool partitioned, std::uint64_t bytes, int reads, bool write_first,
         bool strided = false) {
  const std::uint64_t lines = bytes / h200_l2().line_bytes;
  double sectors = 0;
  for (auto _ : state) {
    Dram dram(h200_l2().sector_bytes);
    std::unique_ptr<MemoryLevel> l2;
    if (partitioned) {
      l2 = std::make_unique<PartitionedL2>(h200_l2(), [] { return make_replacement("lru"); }, dram);
    } else {
      l2 = std::make_unique<L2Cache>(h200_l2(), make_replacement("lru"), dram);
    }
    if (write_first) sweep(*l2, Request::write, lines, strided);
    for (int k = 0; k < reads; ++k) sweep(*l2, Request::read, lines, strided);
    sectors += static_cast<double>(l2->counters().read_sectors + l2->counters().write_sectors);
    benchmark::DoNotOptimize(dram.read_bytes().value);
  }
  state.counters["sectors/s"] = benchmark::Counter(sectors, benchmark::Counter::kIsRate);
}

void stream(benchmark::State& state) { run(state, true, std::uint64_t{256} << 20, 1, true); }
void resident(benchmark::State& state) { run(state, true, std::uint64_t{16} << 20, 16, false); }
void unified(benchmark::State& state) { run(state, false, std::uint64_t{256} << 20, 1, true); }
void strided(benchmark::State& state) { run(state, true, std::uint64_t{256} << 20, 1, true, true); }
BENCHMARK(stream)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(resident)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(unified)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(strided)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
