#include "sim/memory/replacement.h"

#include <algorithm>
#include <array>
#include <numeric>

namespace iosim {

namespace {

/// The way with the smallest word (0, never filled, comes first).
std::uint32_t oldest(const std::uint32_t* w, std::uint32_t ways) {
  std::uint32_t best = 0;
  for (std::uint32_t i = 1; i < ways; ++i) {
    if (w[i] < w[best]) best = i;
  }
  return best;
}

/// Squeezes the words into 1..ways keeping their order (0 stays 0).
void squeeze(std::uint32_t* w, std::uint32_t ways) {
  std::array<std::uint32_t, 256> order{};
  const std::uint32_t n = std::min<std::uint32_t>(ways, 256);
  std::iota(order.begin(), order.begin() + n, 0u);
  std::sort(order.begin(), order.begin() + n, [&](std::uint32_t a, std::uint32_t b) { return w[a] < w[b]; });
  std::uint32_t rank = 0;
  for (std::uint32_t i = 0; i < n; ++i) w[order[i]] = w[order[i]] == 0 ? 0 : ++rank;
}

}  // namespace

void ClockedReplacement::renumber(std::uint32_t* w, std::uint32_t ways) const { squeeze(w, ways); }

std::uint32_t LruReplacement::victim(const std::uint32_t* w, std::uint32_t ways) const { return oldest(w, ways); }
std::uint32_t FifoReplacement::victim(const std::uint32_t* w, std::uint32_t ways) const { return oldest(w, ways); }

std::uint32_t RandomReplacement::victim(const std::uint32_t* w, std::uint32_t ways) const {
  std::uint64_t h = 0x9E3779B97F4A7C15ull;
  for (std::uint32_t i = 0; i < ways; ++i) {
    if (w[i] == 0) return i;  // a way never filled
    h = (h ^ w[i]) * 0xBF58476D1CE4E5B9ull;
  }
  h ^= h >> 31;
  return static_cast<std::uint32_t>(h % ways);
}

std::unique_ptr<Replacement> make_replacement(std::string_view name) {
  if (name == "lru") return std::make_unique<LruReplacement>();
  if (name == "fifo") return std::make_unique<FifoReplacement>();
  if (name == "random") return std::make_unique<RandomReplacement>();
  return nullptr;
}

}  // namespace iosim
