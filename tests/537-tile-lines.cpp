// TileLines (sim/gpu/tile_lines.h), the fast replay's table of recent tiles' sampled lines: whatever
// it finds, keeps, forgets or does not keep, it appends what SetSample::add() appends and returns its
// sectors, tile after tile, in an order that comes back to tiles, collides in its table and fills its pool.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "sim/gpu/set_sample.h"
#include "sim/gpu/tile_lines.h"

using namespace iosim;

TEST_CASE("tile lines: the same lines and sectors as SetSample::add, kept, forgotten or not kept") {
  const std::uint64_t sets = 640;
  std::vector<TileBytes> tiles;
  // Contiguous tiles of 1 to 300 lines (some starting mid-line), thousands of them: at stride 1 the
  // pool (64 Ki lines) fills many times, and 4096 slots collide.
  for (std::uint64_t i = 0; i < 3000; ++i) {
    const std::uint64_t lines = 1 + (i * 37) % 300;
    tiles.push_back({i * 65536 + (i % 3) * 48, lines * 128 - (i % 3) * 16, lines * 128, 1});
  }
  // Rows apart (set_sample's cases): a row per line, rows sharing lines, rows of several lines.
  for (const TileBytes& b : std::vector<TileBytes>{{4096 + 64, 64, 128, 300}, {8192, 64, 16384, 200},
                                                   {0, 64, 96, 400}, {40, 300, 512, 90},
                                                   {128 * 600 + 32, 300, 128 * 20, 100}, {0, 256, 128 * 1024, 40}}) {
    tiles.push_back(b);
    tiles.push_back({b.start + 128, b.width, b.stride, b.rows});  // the same shape moved: another key
    tiles.push_back({b.start, b.width, b.stride, b.rows / 2});    // the same start, fewer rows: another key
  }
  for (std::uint32_t stride : {1u, 8u, 64u}) {
    CAPTURE(stride);
    const SetSample sample(sets, stride, 128, 32);
    TileLines memo(sample);
    std::vector<LineAccess> got{{7, 1}}, want{{7, 1}};  // appended after what is there
    std::uint64_t at = 1;
    for (std::uint64_t n = 0; n < 40000; ++n) {
      // Mostly the last few dozen tiles again (the blocks of a head), now and then any.
      at = (at * 6364136223846793005ull + 1442695040888963407ull);
      const std::uint64_t i = (at >> 33) % 16 == 0 ? (at >> 20) % tiles.size() : (n / 8 + (at >> 40) % 24) % tiles.size();
      const TileBytes& b = tiles[i];
      CAPTURE(i);
      REQUIRE(memo.add(b, got) == sample.add(b, want));
      REQUIRE(got == want);
      if (got.size() > 100000) got.resize(1), want.resize(1);
    }
  }
}
