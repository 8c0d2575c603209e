#include <doctest/doctest.h>

#include <vector>

#include "sim/core/tiling.h"

using namespace iosim;

namespace {
std::vector<Span> spans(const Tiling& t, Walk w, std::uint64_t lo, std::uint64_t hi) {
  std::vector<Span> out;
  for_spans(t, w, lo, hi, [&](const Span& s) { out.push_back(s); });
  return out;
}
}  // namespace

SCENARIO("a ragged dimension is split into full tiles and one short tile") {
  GIVEN("n = 10 cut into tiles of 4") {
    const Tiling t{10, 4};
    CHECK(t.count() == 3);
    CHECK(t.size(0) == 4);
    CHECK(t.size(2) == 2);
    CHECK(t.ragged());
    WHEN("walked in runs") {
      const auto s = spans(t, Walk::runs, 0, t.count());
      THEN("the two full tiles form one run and the short one another") {
        REQUIRE(s.size() == 2);
        CHECK(s[0].first == 0);
        CHECK(s[0].count == 2);
        CHECK(s[0].size == 4);
        CHECK(s[1].first == 2);
        CHECK(s[1].count == 1);
        CHECK(s[1].size == 2);
        CHECK(s[1].begin == 8);
      }
    }
    WHEN("walked one by one") {
      const auto s = spans(t, Walk::each, 0, t.count());
      THEN("every tile comes once, in order") {
        REQUIRE(s.size() == 3);
        for (std::uint64_t i = 0; i < 3; ++i) {
          CHECK(s[i].first == i);
          CHECK(s[i].count == 1);
          CHECK(s[i].begin == 4 * i);
        }
      }
    }
  }
  GIVEN("a dimension the tile divides") {
    const auto s = spans(Tiling{12, 4}, Walk::runs, 0, 3);
    CHECK(s.size() == 1);
    CHECK(s[0].count == 3);
  }
  GIVEN("a tile larger than the dimension") {
    const Tiling t{5, 64};
    CHECK(t.count() == 1);
    const auto s = spans(t, Walk::runs, 0, 1);
    REQUIRE(s.size() == 1);
    CHECK(s[0].size == 5);
  }
  GIVEN("a sub-range of tiles") {
    const auto s = spans(Tiling{10, 4}, Walk::runs, 1, 3);
    REQUIRE(s.size() == 2);
    CHECK(s[0].first == 1);
    CHECK(s[0].count == 1);
    CHECK(s[1].first == 2);
    CHECK(spans(Tiling{10, 4}, Walk::runs, 2, 2).empty());
  }
}

TEST_CASE("runs and single tiles cover the same elements") {
  for (std::uint64_t extent : {1u, 7u, 64u, 65u, 1000u}) {
    for (std::uint64_t block : {1u, 3u, 16u, 64u, 128u}) {
      const Tiling t{extent, block};
      for (Walk w : {Walk::runs, Walk::each}) {
        std::uint64_t covered = 0, tiles = 0, next = 0;
        for_spans(t, w, [&](const Span& s) {
          CHECK(s.begin == next);
          covered += s.count * s.size;
          tiles += s.count;
          next = s.begin + s.count * s.size;
        });
        CHECK(covered == extent);
        CHECK(tiles == t.count());
      }
    }
  }
}
