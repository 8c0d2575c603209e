// Tiles to lines and sectors: the layout every kernel and the CUDA backend share.
#include <doctest/doctest.h>

#include "sim/gpu/address_map.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

namespace {
std::vector<LineAccess> lines(const AddressMap& m, const TileRef& t, std::uint64_t head = 0,
                              HeadMap map = HeadMap::query) {
  std::vector<LineAccess> out;
  m.lines(t, head, map, out);
  return out;
}
}  // namespace

TEST_CASE("a full-width tile of d = 64 fp16 rows is one whole line a row") {
  const AddressMap m(problem(1024, 64, 1, 2), 128, 32);
  const auto l = lines(m, TileRef{Tensor::Q, 128, 64, 0, 64});
  REQUIRE(l.size() == 64);
  CHECK(l.front().line == (m.base(Tensor::Q) + 128 * 128) / 128);
  CHECK(l.front().mask == 0xF);
  CHECK(l.back().line == l.front().line + 63);
  // Head 1 starts n rows later.
  CHECK(lines(m, TileRef{Tensor::Q, 0, 1, 0, 64}, 1).front().line == (m.base(Tensor::Q) + 1024 * 128) / 128);
}

TEST_CASE("statistics rows are 4 bytes: a tile of 10 rows covers two sectors of one line") {
  const AddressMap m(problem(1024, 64), 128, 32);
  const auto l = lines(m, TileRef{Tensor::L, 0, 10, 0, 1});
  REQUIRE(l.size() == 1);
  CHECK(l[0].mask == 0x3);
}

TEST_CASE("a partial-width tile touches a few sectors of each row") {
  const AddressMap m(problem(256, 64, 1, 1, 512), 128, 32);
  // S rows are 512 × 2 B = 1 KiB = 8 lines; columns 32..63 are bytes 64..127 of the row's first line.
  const auto l = lines(m, TileRef{Tensor::S, 0, 2, 32, 32});
  REQUIRE(l.size() == 2);
  CHECK(l[0].mask == 0xC);
  CHECK(l[1].line == l[0].line + 8);
}

TEST_CASE("grouped-query attention: a query head's K is its group's") {
  Problem p = problem(128, 64, 2, 8);
  p.kv_heads = 2;  // group of 4
  const AddressMap m(p, 128, 32);
  const TileRef k{Tensor::K, 0, 1, 0, 64};
  CHECK(lines(m, k, 3, HeadMap::kv_of_query).front().line == lines(m, k, 0, HeadMap::kv_of_query).front().line);
  // Query head 4 of batch 0 uses K/V head 1; query head 8 (batch 1, head 0) uses K/V head 2.
  CHECK(lines(m, k, 4, HeadMap::kv_of_query).front().line == lines(m, k, 1, HeadMap::kv).front().line);
  CHECK(lines(m, k, 8, HeadMap::kv_of_query).front().line == lines(m, k, 2, HeadMap::kv).front().line);
  // Packed rows: row 1 of K/V head 1's packed Q (n = 128 rows per query head) is row 1 of query head 4.
  const TileRef q{Tensor::Q, 1, 1, 0, 64};
  CHECK(lines(m, q, 1, HeadMap::packed_query).front().line == lines(m, q, 4, HeadMap::query).front().line);
}

TEST_CASE("split partials are separate copies; tensors do not overlap") {
  const AddressMap m(problem(64, 64, 1, 4), 128, 32);
  const auto s0 = lines(m, TileRef{Tensor::Opart, 0, 1, 0, 64, 0});
  const auto s1 = lines(m, TileRef{Tensor::Opart, 0, 1, 0, 64, 1});
  CHECK(s1.front().line - s0.front().line == 4 * 64 * 64 * 4 / 128);
  for (Tensor t : kAllTensors) CHECK(m.base(t) % AddressMap::kAlignment == 0);
  CHECK(m.base(Tensor::K) > m.base(Tensor::Q));
}
