// The capacity probe (l2_capacity.cu) replayed through iosim's own L2 model (sim/memory): the DRAM
// reads of the second launch, per footprint and mode, for a chosen associativity, replacement policy
// and partition count, so that the model's curves can be laid beside the H100's.
//
// The probe's order, as the model sees it: its 132 blocks run at once (block b on SM b, so that SMs
// alternate partitions as PartitionedL2 assumes), each loop round of a block's 512 threads reads 8 KiB
// (64 lines) in order, and the blocks take their rounds in turn (round-robin). `own`: block b walks
// its slice [b F / B, (b + 1) F / B); `shared`: every block walks all of F from offset b F / B,
// wrapping. Launch one fills the L2; the counters are reset; launch two is counted.
//
// Usage: replay CAPACITY_BYTES WAYS POLICY(lru|fifo|random) PARTITIONS(1|2) MODE(own|shared) MIB...
// Prints one line per footprint, of launch two: mode, MiB, footprint sectors, sectors the SMs asked,
// sectors that missed in the partition asked (ncu: asked − lts__t_sectors_srcunit_tex_op_read_lookup_hit),
// DRAM read sectors.
// Build (from the repository root):
//   g++ -O2 -std=c++20 -I. -o /tmp/l2_replay scripts/lab/l2-capacity/replay.cpp \
//       sim/memory/l2_cache.cpp sim/memory/partitioned_l2.cpp sim/memory/replacement.cpp
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "sim/memory/dram.h"
#include "sim/memory/l2_cache.h"
#include "sim/memory/partitioned_l2.h"

namespace {

using namespace iosim;

constexpr std::uint32_t kBlocks = 132;
constexpr std::uint64_t kLine = 128;
constexpr std::uint64_t kRoundLines = 512 * 16 / kLine;  // one loop round of a block: 8 KiB
constexpr std::uint32_t kAllSectors = 0xF;

int fail(const char* what) {
  std::fprintf(stderr, "replay: %s\n", what);
  return 2;
}

/// One launch of the probe over `lines` lines.
void launch(MemoryLevel& l2, std::uint64_t lines, bool shared) {
  if (!shared) {
    // Block b's slice; the longest slice sets the rounds, shorter ones sit out their last.
    const std::uint64_t rounds = (lines / kBlocks + kRoundLines) / kRoundLines + 1;
    for (std::uint64_t r = 0; r < rounds; ++r)
      for (std::uint32_t b = 0; b < kBlocks; ++b) {
        const std::uint64_t begin = lines * b / kBlocks, end = lines * (b + 1) / kBlocks;
        for (std::uint64_t i = begin + r * kRoundLines; i < end && i < begin + (r + 1) * kRoundLines; ++i)
          l2.read(i, kAllSectors, b);
      }
    return;
  }
  const std::uint64_t rounds = (lines + kRoundLines - 1) / kRoundLines;
  for (std::uint64_t r = 0; r < rounds; ++r)
    for (std::uint32_t b = 0; b < kBlocks; ++b) {
      const std::uint64_t offset = lines * b / kBlocks;
      for (std::uint64_t i = r * kRoundLines; i < lines && i < (r + 1) * kRoundLines; ++i)
        l2.read((offset + i) % lines, kAllSectors, b);
    }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 7) return fail("usage: replay CAPACITY_BYTES WAYS lru|fifo|random 1|2 own|shared MIB...");
  L2Spec spec;
  spec.capacity = Bytes(std::strtoull(argv[1], nullptr, 10));
  spec.line_bytes = kLine;
  spec.sector_bytes = 32;
  spec.ways = static_cast<std::uint32_t>(std::strtoul(argv[2], nullptr, 10));
  spec.partitions = static_cast<std::uint32_t>(std::strtoul(argv[4], nullptr, 10));
  const std::string policy = argv[3];
  const bool shared = std::strcmp(argv[5], "shared") == 0;
  if (spec.ways == 0 || spec.capacity.value % (kLine * spec.ways * spec.partitions) != 0)
    return fail("CAPACITY_BYTES must be a multiple of 128 × WAYS × PARTITIONS");
  if (!make_replacement(policy)) return fail("POLICY must be lru, fifo or random");
  if (spec.partitions != 1 && spec.partitions != 2) return fail("PARTITIONS must be 1 or 2");
  if (!shared && std::strcmp(argv[5], "own") != 0) return fail("MODE must be own or shared");
  for (int a = 6; a < argc; ++a) {
    const long mib = std::strtol(argv[a], nullptr, 10);
    if (mib <= 0 || mib > 4096) return fail("MIB must be 1 to 4096");
    const std::uint64_t lines = (static_cast<std::uint64_t>(mib) << 20) / kLine;
    Dram dram(spec.sector_bytes);
    std::unique_ptr<MemoryLevel> l2;
    if (spec.partitions == 2)
      l2 = std::make_unique<PartitionedL2>(spec, [&] { return make_replacement(policy); }, dram);
    else
      l2 = std::make_unique<L2Cache>(spec, make_replacement(policy), dram);
    launch(*l2, lines, shared);
    dram.reset_counters();
    l2->reset_counters();
    launch(*l2, lines, shared);
    const LevelCounters& c = l2->counters();
    std::printf("%s %ld %llu %llu %llu %llu\n", shared ? "shared" : "own", mib,
                static_cast<unsigned long long>(lines * 4), static_cast<unsigned long long>(c.read_sectors),
                static_cast<unsigned long long>(c.read_miss_sectors),
                static_cast<unsigned long long>(dram.counters().read_sectors));
  }
  return 0;
}
