// The capacity probe's `shared` mode (scripts/lab/l2-capacity/l2_capacity.cu) replayed through iosim's
// PartitionedL2 with the blocks self-timed instead of in lockstep: each block's next round (512 threads
// × 16 B = 64 lines, all in flight together) starts when its previous one ends, and a round lasts the
// latency of its slowest read: a DRAM read (a miss in the line's home) DRAM_LATENCY cycles, anything
// else L2_HIT_LATENCY, times 1 + JITTER × u, u uniform in [−1, 1) from a fixed-seed generator (JITTER
// is a sensitivity knob for a diagnostic, not a model parameter: it stands for the queueing the replay
// leaves out). No bandwidth limits. The question it answers: does the copy model, left to its own
// timing, let the readers bunch, and how many DRAM reads does that leave?
// Usage: timed_replay L2_HIT_LATENCY DRAM_LATENCY JITTER MIB...
// Prints per footprint, of launch two: MiB, footprint sectors, sectors asked, near misses, DRAM read
// sectors, fabric sectors.
// Build (from the repository root), with the sources sim/memory/{l2_cache,partitioned_l2,replacement}.cpp:
//   g++ -O2 -std=c++20 -I. -o /tmp/timed_replay results/l2-share-2026-12-07/timed_replay.cpp sim/memory/*.cpp
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <queue>
#include <random>
#include <utility>
#include <vector>

#include "sim/memory/dram.h"
#include "sim/memory/partitioned_l2.h"

namespace {

using namespace iosim;

constexpr std::uint32_t kBlocks = 132;
constexpr std::uint64_t kLine = 128;
constexpr std::uint64_t kRoundLines = 512 * 16 / kLine;

void launch(PartitionedL2& l2, Dram& dram, std::uint64_t lines, double hit, double miss, double jitter) {
  static std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  using Ready = std::pair<double, std::uint32_t>;  // (cycle, block)
  std::priority_queue<Ready, std::vector<Ready>, std::greater<>> ready;
  std::vector<std::uint64_t> next(kBlocks, 0);
  for (std::uint32_t b = 0; b < kBlocks; ++b) ready.emplace(0, b);
  const std::uint64_t rounds = (lines + kRoundLines - 1) / kRoundLines;
  while (!ready.empty()) {
    const auto [t, b] = ready.top();
    ready.pop();
    const std::uint64_t offset = lines * b / kBlocks, r = next[b]++;
    const std::uint64_t before = dram.counters().read_sectors;
    for (std::uint64_t i = r * kRoundLines; i < lines && i < (r + 1) * kRoundLines; ++i)
      l2.read((offset + i) % lines, 0xF, b);
    if (next[b] < rounds) ready.emplace(t + (dram.counters().read_sectors > before ? miss : hit) * (1 + jitter * u(rng)), b);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "timed_replay: usage: timed_replay L2_HIT_LATENCY DRAM_LATENCY JITTER MIB...\n");
    return 2;
  }
  const double hit = std::strtod(argv[1], nullptr), miss = std::strtod(argv[2], nullptr), jitter = std::strtod(argv[3], nullptr);
  if (hit <= 0 || miss <= 0 || jitter < 0 || jitter >= 1) {
    std::fprintf(stderr, "timed_replay: latencies must be positive and JITTER in [0, 1)\n");
    return 2;
  }
  L2Spec spec;
  spec.capacity = Bytes(52428800);  // configs/h100.yaml's L2
  spec.line_bytes = kLine;
  spec.sector_bytes = 32;
  spec.ways = 16;
  spec.partitions = 2;
  for (int a = 4; a < argc; ++a) {
    const long mib = std::strtol(argv[a], nullptr, 10);
    const std::uint64_t lines = (static_cast<std::uint64_t>(mib) << 20) / kLine;
    Dram dram(spec.sector_bytes);
    PartitionedL2 l2(spec, [] { return make_replacement("lru"); }, dram);
    launch(l2, dram, lines, hit, miss, jitter);
    dram.reset_counters();
    l2.reset_counters();
    launch(l2, dram, lines, hit, miss, jitter);
    const LevelCounters& c = l2.counters();
    std::printf("%ld %llu %llu %llu %llu %llu\n", mib, static_cast<unsigned long long>(lines * 4),
                static_cast<unsigned long long>(c.read_sectors), static_cast<unsigned long long>(c.read_miss_sectors),
                static_cast<unsigned long long>(dram.counters().read_sectors),
                static_cast<unsigned long long>(c.fabric_read_sectors));
  }
  return 0;
}
