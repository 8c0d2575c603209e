// The capacity probe's `shared` mode (every one of 132 blocks reads the whole footprint from offset
// b F / 132, 8 KiB rounds) replayed through iosim's PartitionedL2, unchanged (configs/h100.yaml's L2:
// 50 MiB, 16 ways, LRU, two partitions), in the two orders of l2_lockstep.cu, to lay beside its H100 run:
//   lock GROUP       the stagger held: the blocks take their rounds in turn (as
//                    scripts/lab/l2-capacity/replay.cpp). Block b asks from partition (b / GROUP) % 2:
//                    GROUP 1 is the model's own placement (SMs alternate partitions); a larger GROUP
//                    stands for a placement where runs of consecutive blocks share a partition (the
//                    H100's block → SM → partition placement was not recorded).
//   free HIT MISS J  self-timed, as results/l2-share-2026-12-07/timed_replay.cpp: a block's next round
//                    starts when its previous one ends; a round lasts MISS cycles if it read DRAM, else
//                    HIT, times 1 + J u (u uniform in [−1, 1), fixed seed). Also prints, for launch two,
//                    "stamp BLOCK K CYCLE" at the rounds where l2_lockstep.cu's `free` mode stamps.
// Then, per footprint, of launch two: "MIB footprint_sectors asked near_miss dram_read fabric".
// Usage: replay_order lock GROUP MIB... | replay_order free HIT MISS JITTER MIB...
// Build (from the repository root):
//   g++ -O2 -std=c++20 -I. -o /tmp/replay_order results/l2-lockstep-2026-12-07/replay_order.cpp
//       sim/memory/l2_cache.cpp sim/memory/partitioned_l2.cpp sim/memory/replacement.cpp   (one line)
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
constexpr std::uint64_t kRoundLines = 512 * 16 / kLine;  // one round of a block: 8 KiB
constexpr std::uint64_t kStamps = 32;                    // as l2_lockstep.cu

struct Order {
  bool lock = true;
  std::uint32_t group = 1;
  double hit = 0, miss = 0, jitter = 0;
};

// One round of block b: its 64 lines from its offset; returns whether it read DRAM.
bool round(PartitionedL2& l2, Dram& dram, std::uint64_t lines, std::uint32_t b, std::uint64_t r, std::uint32_t sm) {
  const std::uint64_t offset = lines * b / kBlocks, before = dram.counters().read_sectors;
  for (std::uint64_t i = r * kRoundLines; i < lines && i < (r + 1) * kRoundLines; ++i) l2.read((offset + i) % lines, 0xF, sm);
  return dram.counters().read_sectors > before;
}

void launch(PartitionedL2& l2, Dram& dram, std::uint64_t lines, const Order& o, bool stamp) {
  const std::uint64_t rounds = (lines + kRoundLines - 1) / kRoundLines;
  if (o.lock) {
    for (std::uint64_t r = 0; r < rounds; ++r)
      for (std::uint32_t b = 0; b < kBlocks; ++b) round(l2, dram, lines, b, r, (b / o.group) % 2);
    return;
  }
  static std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const std::uint64_t every = rounds / kStamps > 0 ? rounds / kStamps : 1;
  using Ready = std::pair<double, std::uint32_t>;  // (cycle, block)
  std::priority_queue<Ready, std::vector<Ready>, std::greater<>> ready;
  std::vector<std::uint64_t> next(kBlocks, 0);
  for (std::uint32_t b = 0; b < kBlocks; ++b) ready.emplace(0, b);
  while (!ready.empty()) {
    const auto [t, b] = ready.top();
    ready.pop();
    const std::uint64_t r = next[b]++;
    if (stamp && r % every == 0 && r / every < kStamps)
      std::printf("stamp %u %llu %.0f\n", b, static_cast<unsigned long long>(r / every), t);
    const bool dram_read = round(l2, dram, lines, b, r, b);
    if (next[b] < rounds) ready.emplace(t + (dram_read ? o.miss : o.hit) * (1 + o.jitter * u(rng)), b);
  }
}

int fail(const char* what) {
  std::fprintf(stderr, "replay_order: %s\n", what);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Order o;
  int first = 0;
  if (argc >= 4 && std::strcmp(argv[1], "lock") == 0) {
    const long g = std::strtol(argv[2], nullptr, 10);
    if (g <= 0 || g > static_cast<long>(kBlocks)) return fail("GROUP must be 1 to 132");
    o.group = static_cast<std::uint32_t>(g);
    first = 3;
  } else if (argc >= 6 && std::strcmp(argv[1], "free") == 0) {
    o.lock = false;
    o.hit = std::strtod(argv[2], nullptr);
    o.miss = std::strtod(argv[3], nullptr);
    o.jitter = std::strtod(argv[4], nullptr);
    if (o.hit <= 0 || o.miss <= 0 || o.jitter < 0 || o.jitter >= 1) return fail("HIT, MISS must be > 0, JITTER in [0, 1)");
    first = 5;
  } else {
    return fail("usage: replay_order lock GROUP MIB... | replay_order free HIT MISS JITTER MIB...");
  }
  L2Spec spec;
  spec.capacity = Bytes(52428800);  // configs/h100.yaml's L2
  spec.line_bytes = kLine;
  spec.sector_bytes = 32;
  spec.ways = 16;
  spec.partitions = 2;
  for (int a = first; a < argc; ++a) {
    const long mib = std::strtol(argv[a], nullptr, 10);
    if (mib <= 0 || mib > 4096) return fail("MIB must be 1 to 4096");
    const std::uint64_t lines = (static_cast<std::uint64_t>(mib) << 20) / kLine;
    Dram dram(spec.sector_bytes);
    PartitionedL2 l2(spec, [] { return make_replacement("lru"); }, dram);
    launch(l2, dram, lines, o, false);
    dram.reset_counters();
    l2.reset_counters();
    launch(l2, dram, lines, o, true);
    const LevelCounters& c = l2.counters();
    std::printf("%ld %llu %llu %llu %llu %llu\n", mib, static_cast<unsigned long long>(lines * 4),
                static_cast<unsigned long long>(c.read_sectors), static_cast<unsigned long long>(c.read_miss_sectors),
                static_cast<unsigned long long>(dram.counters().read_sectors),
                static_cast<unsigned long long>(c.fabric_read_sectors));
  }
  return 0;
}
