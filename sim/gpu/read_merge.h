// The L2's merging of simultaneous reads: when several SMs ask an L2 partition for the same line at
// about the same moment, one lookup answers up to kMergeCap of their requests; the others are still
// delivered to their SMs through the crossbar (l1tex__m_xbar2l1tex_read_sectors counts them) but are
// no lookups (lts__t_sectors_srcunit_tex_op_read does not), and change no L2 state.
//
// "About the same moment" is one round of the exact replay (gpu_model.cpp: each running block takes
// one step a round, so blocks launched together walk their steps together, as the hardware's convoys
// do). Within a round, the read requests for one line with one sector mask from one partition are
// counted in the order they come: the 1st, (kMergeCap+1)th, … are lookups, the rest merged. Stores
// and reductions are never merged (not probed).
#pragma once

#include <cstdint>
#include <unordered_map>

#include "sim/memory/memory_level.h"

namespace iosim {

/// Requests one L2 lookup answers at most. The H100 probe (results/l2-probes-2026-12-07,
/// analysis-app.md): lockstep readers of one buffer were counted 1/2 at 2 blocks, 1/3 at 3, 1/4 at 4,
/// 2/6 at 6, 2/8 at 8, and about 1/4 from 33 to 132 blocks.
inline constexpr std::uint32_t kMergeCap = 4;

class ReadMerge {
 public:
  /// Whether a read of `mask` of `line` from `partition` is merged into an earlier lookup of this round
  /// (true: it is not sent to the L2) or makes a lookup (false). Counts the merged sectors.
  bool merged(std::uint64_t line, std::uint32_t mask, std::uint32_t partition) {
    std::uint32_t& seen = round_[Key{line, mask, partition}];
    const bool follower = seen % kMergeCap != 0;
    ++seen;
    if (follower) merged_sectors_ += sector_count(mask);
    return follower;
  }
  /// Starts a new round: no later request merges into this round's lookups.
  void next_round() { round_.clear(); }
  /// Sectors merged since construction.
  [[nodiscard]] std::uint64_t merged_sectors() const { return merged_sectors_; }

 private:
  struct Key {
    std::uint64_t line;
    std::uint32_t mask;
    std::uint32_t partition;
    friend bool operator==(const Key&, const Key&) = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      const std::uint64_t h = (k.line * 0x9E3779B97F4A7C15ull) ^ (std::uint64_t{k.mask} << 8) ^ k.partition;
      return static_cast<std::size_t>(h ^ (h >> 29));
    }
  };
  std::unordered_map<Key, std::uint32_t, KeyHash> round_;
  std::uint64_t merged_sectors_ = 0;
};

}  // namespace iosim
