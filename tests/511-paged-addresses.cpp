// Paged K/V in the address map: page k of a sequence lies in the slot the block table gives it, so the
// L2 replay sees scattered pages; contiguous order is the unpaged layout.
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>

#include "sim/gpu/address_map.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

namespace {

std::vector<LineAccess> lines(const AddressMap& m, const TileRef& t, std::uint64_t head, HeadMap map) {
  std::vector<LineAccess> out;
  m.lines(t, head, map, out);
  return out;
}

Problem cache(std::uint64_t page_size, PageOrder order, std::uint64_t seed, std::uint64_t n_kv = 1024) {
  Problem p = problem(1, 64, 2, 8, n_kv);
  p.kv_heads = 2;
  p.page_size = page_size;
  p.page_order = order;
  p.page_seed = seed;
  return p;
}

constexpr std::uint64_t kRowBytes = 64 * 2;  // d = 64, fp16

}  // namespace

TEST_CASE("contiguous order with the page size dividing n_kv gives the unpaged addresses exactly") {
  Problem flat = cache(16, PageOrder::contiguous, 0);
  flat.page_size = 0;
  const AddressMap unpaged(flat, 128, 32);
  const AddressMap in_order(cache(16, PageOrder::contiguous, 0), 128, 32);
  for (Tensor t : {Tensor::K, Tensor::V}) {
    CHECK(in_order.base(t) == unpaged.base(t));
    for (std::uint64_t head = 0; head < 4; ++head) {  // batch 2 × 2 K/V heads
      for (std::uint64_t row : {0u, 15u, 16u, 17u, 500u, 1023u}) {
        CHECK(in_order.row_address(t, head, row) == unpaged.row_address(t, head, row));
      }
      const TileRef tile{t, 96, 128, 0, 64};  // 8 pages
      CHECK(lines(in_order, tile, head, HeadMap::kv) == lines(unpaged, tile, head, HeadMap::kv));
    }
  }
}

TEST_CASE("random order: page k of sequence s lies at slot(k) · page bytes + its offset") {
  const std::uint64_t page = 32, pages = 1024 / page;
  const AddressMap m(cache(page, PageOrder::random, 7), 128, 32);
  const BlockTable& table = m.block_table();
  REQUIRE(table.pages() == pages);
  bool moved = false;
  for (std::uint64_t s = 0; s < 4; ++s) {
    std::vector<std::uint64_t> slots;
    for (std::uint64_t k = 0; k < pages; ++k) slots.push_back(table.slot(s, k));
    std::vector<std::uint64_t> sorted = slots;
    std::sort(sorted.begin(), sorted.end());
    std::vector<std::uint64_t> own(pages);
    std::iota(own.begin(), own.end(), s * pages);
    CHECK(sorted == own);  // a permutation of the sequence's own slots
    for (std::uint64_t k = 0; k < pages; ++k) {
      moved = moved || slots[k] != s * pages + k;
      for (std::uint64_t within : {0u, 1u, 31u}) {
        CHECK(m.row_address(Tensor::K, s, k * page + within) ==
              m.base(Tensor::K) + slots[k] * page * kRowBytes + within * kRowBytes);
      }
    }
  }
  CHECK(moved);
}

TEST_CASE("a tile over two shuffled pages is two runs of lines, each at its page's slot") {
  const std::uint64_t page = 16;
  const AddressMap m(cache(page, PageOrder::random, 3), 128, 32);
  // Rows 16..47 of sequence 1: pages 1 and 2, 16 rows of 128 bytes (16 lines) each.
  const auto l = lines(m, TileRef{Tensor::V, 16, 32, 0, 64}, 1, HeadMap::kv);
  REQUIRE(l.size() == 32);
  const std::uint64_t first = m.row_address(Tensor::V, 1, 16) / 128, second = m.row_address(Tensor::V, 1, 32) / 128;
  CHECK(first == (m.base(Tensor::V) + m.block_table().slot(1, 1) * page * kRowBytes) / 128);
  CHECK(l[0].line == first);
  CHECK(l[15].line == first + 15);
  CHECK(l[16].line == second);
  CHECK(l[31].line == second + 15);
}

TEST_CASE("the shuffle is fixed by the seed") {
  const AddressMap a(cache(16, PageOrder::random, 5), 128, 32), b(cache(16, PageOrder::random, 5), 128, 32);
  const AddressMap c(cache(16, PageOrder::random, 6), 128, 32);
  bool differs = false;
  for (std::uint64_t k = 0; k < 64; ++k) {
    CHECK(a.block_table().slot(3, k) == b.block_table().slot(3, k));
    differs = differs || a.block_table().slot(3, k) != c.block_table().slot(3, k);
  }
  CHECK(differs);
}

TEST_CASE("a short last page is padded: the cache holds whole pages") {
  const AddressMap m(cache(256, PageOrder::contiguous, 0, 1000), 128, 32);
  // Sequence 1 starts after 4 whole pages of sequence 0, not after its 1000 rows.
  CHECK(m.row_address(Tensor::K, 1, 0) == m.base(Tensor::K) + 4 * 256 * kRowBytes);
  CHECK(m.base(Tensor::V) >= m.base(Tensor::K) + 4 * 4 * 256 * kRowBytes);
}
