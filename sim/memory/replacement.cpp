#include "sim/memory/replacement.h"

#include <algorithm>
#include <array>
#include <numeric>

#include "sim/memory/set_scan.h"

namespace iosim {

std::uint16_t renumber(std::uint16_t* ages, std::uint32_t ways) {
  std::array<std::uint16_t, kMaxWays> order{};
  std::iota(order.begin(), order.begin() + ways, std::uint16_t{0});
  std::sort(order.begin(), order.begin() + ways, [&](std::uint16_t a, std::uint16_t b) { return ages[a] < ages[b]; });
  std::uint16_t rank = 0;
  for (std::uint32_t i = 0; i < ways; ++i) {
    std::uint16_t& age = ages[order[i]];
    age = age == 0 ? 0 : ++rank;
  }
  return rank;
}

std::uint32_t LruReplacement::victim(const std::uint16_t* ages, std::uint32_t ways) const {
  return set_scan::oldest(ages, ways);
}
std::uint32_t FifoReplacement::victim(const std::uint16_t* ages, std::uint32_t ways) const {
  return set_scan::oldest(ages, ways);
}

std::uint32_t RandomReplacement::victim(const std::uint16_t* ages, std::uint32_t ways) const {
  std::uint64_t h = 0x9E3779B97F4A7C15ull;
  for (std::uint32_t i = 0; i < ways; ++i) {
    if (ages[i] == 0) return i;  // a way never filled
    h = (h ^ ages[i]) * 0xBF58476D1CE4E5B9ull;
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
