#include "sim/core/paging.h"

#include <charconv>
#include <limits>
#include <numeric>

#include "sim/core/error.h"

namespace iosim {

namespace {

/// splitmix64: a fixed, portable stream of 64-bit draws.
std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

PageRun pages_of(const Problem& p, const Span& j) {
  if (!p.paged() || j.size == 0) return {};
  const std::uint64_t first = j.begin / p.page_size;
  const std::uint64_t last = (j.begin + j.size - 1) / p.page_size;
  return {first, last - first + 1};
}

void check_page_tile(const Problem& p, std::uint64_t bc, std::string_view schedule) {
  if (!p.paged() || bc == 0) return;
  if (bc % p.page_size == 0 || p.page_size % bc == 0) return;
  throw InputError("--page-size " + std::to_string(p.page_size) + " and " + std::string(schedule) +
                   "'s K/V tile B_c = " + std::to_string(bc) +
                   " must divide one another (a tile of whole pages, or a page of whole tiles)");
}

bool parse_page_order(std::string_view s, PageOrder& order, std::uint64_t& seed) {
  if (s == "contiguous") {
    order = PageOrder::contiguous;
    seed = 0;
    return true;
  }
  if (s == "random") {
    order = PageOrder::random;
    seed = kDefaultPageSeed;
    return true;
  }
  std::uint64_t v = 0;
  const char* end = s.data() + s.size();
  const auto [at, ec] = std::from_chars(s.data(), end, v);
  if (s.empty() || ec != std::errc() || at != end) return false;
  order = PageOrder::random;
  seed = v;
  return true;
}

BlockTable::BlockTable(const Problem& p) : pages_(p.pages()) {
  if (!p.paged() || p.page_order == PageOrder::contiguous) return;
  const std::uint64_t seqs = stored_heads(p, Heads::kv);
  perm_.resize(checked_mul(seqs, pages_));
  for (std::uint64_t s = 0; s < seqs; ++s) {
    const auto row = perm_.begin() + static_cast<std::ptrdiff_t>(s * pages_);
    std::iota(row, row + static_cast<std::ptrdiff_t>(pages_), std::uint32_t{0});
    std::uint64_t state = p.page_seed ^ (s * 0xd1b54a32d192ed03ULL);
    for (std::uint64_t k = pages_; k > 1; --k) {  // Fisher–Yates: the k-th draw picks among k
      const std::uint64_t pick = splitmix64(state) % k;
      std::swap(row[static_cast<std::ptrdiff_t>(k - 1)], row[static_cast<std::ptrdiff_t>(pick)]);
    }
  }
}

std::vector<std::int32_t> BlockTable::entries(std::uint64_t seqs) const {
  const std::uint64_t count = checked_mul(seqs, pages_);
  if (count > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max())) {
    throw InputError("--page-size: " + std::to_string(count) + " pages do not fit the block table's int32 slots");
  }
  std::vector<std::int32_t> out(count);
  for (std::uint64_t s = 0; s < seqs; ++s) {
    for (std::uint64_t k = 0; k < pages_; ++k) out[s * pages_ + k] = static_cast<std::int32_t>(slot(s, k));
  }
  return out;
}

}  // namespace iosim
