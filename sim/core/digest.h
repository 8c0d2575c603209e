// Two 64-bit digests of a stream of words, by different multiply-rotate chains, then finalised:
// equal streams have equal digests; unequal ones would have to collide in both chains at once (not
// a cryptographic guarantee: the streams are not chosen to collide). Used to compare what a replay
// reads (sim/gpu/replay_input.h) and what an L2 holds (MemoryLevel::digest_contents()).
#pragma once

#include <array>
#include <bit>
#include <cstdint>

namespace iosim {

class Digest {
 public:
  void add(std::uint64_t w) {
    a_ = (std::rotl(a_, 23) ^ w) * 0x9E3779B97F4A7C15ULL;
    b_ = (std::rotl(b_, 41) + w) * 0xC2B2AE3D27D4EB4FULL;
  }
  [[nodiscard]] std::array<std::uint64_t, 2> value() const { return {mix(a_), mix(b_ ^ 0x165667B19E3779F9ULL)}; }

 private:
  static std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  std::uint64_t a_ = 0x243F6A8885A308D3ULL, b_ = 0x13198A2E03707344ULL;
};

}  // namespace iosim
