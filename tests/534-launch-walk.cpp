// walk_launch (sim/gpu/launch_work.h): the blocks end in the order, and hold the slots and turns,
// that a priority queue of (turn it ends, slot) gives, the freed slot taking the next block in launch
// order: for blocks of equal and unequal steps (none of 0 steps or some), fewer or more slots than
// blocks, both launch orders.
#include <doctest/doctest.h>

#include <cstdint>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include "sim/gpu/launch_work.h"

using namespace iosim;

namespace {

/// The launch by a priority queue: the definition walk_launch is checked against.
std::vector<BlockTurns> by_queue(const std::vector<BlockWork>& profiles, std::uint64_t heads, LaunchOrder order,
                                 std::size_t slots) {
  const std::uint64_t xs = profiles.size(), blocks = xs * heads;
  const auto x_of = [&](std::uint64_t b) { return order == LaunchOrder::x_major ? b % xs : b / heads; };
  std::vector<BlockTurns> running(std::min<std::uint64_t>(slots, blocks)), out;
  using Turn = std::pair<std::uint64_t, std::size_t>;
  std::priority_queue<Turn, std::vector<Turn>, std::greater<>> ends;
  std::uint64_t launched = 0;
  const auto launch = [&](std::size_t i, std::uint64_t start) {
    running[i] = {launched, x_of(launched), i, start, start + profiles[x_of(launched)].steps};
    ++launched;
    ends.push({running[i].end, i});
  };
  for (std::size_t i = 0; i < running.size(); ++i) launch(i, 0);
  while (!ends.empty()) {
    const auto [turn, i] = ends.top();
    ends.pop();
    out.push_back(running[i]);
    if (launched < blocks) launch(i, turn + 1);
  }
  return out;
}

}  // namespace

TEST_CASE("launch walk: the blocks, slots and turns of a priority queue of the turns they end") {
  std::vector<std::vector<BlockWork>> grids;
  grids.push_back(std::vector<BlockWork>(7, BlockWork{5, {}, Bytes(0)}));  // equal steps
  std::vector<BlockWork> causal;  // a causal grid: x + 1 steps
  for (std::uint64_t x = 0; x < 13; ++x) causal.push_back({x + 1, {}, Bytes(0)});
  grids.push_back(causal);
  std::vector<BlockWork> mixed;  // unequal, some of 0 steps, the most far above the rest
  for (std::uint64_t x = 0; x < 11; ++x) mixed.push_back({(x * 7) % 5 + (x == 4 ? 40 : 0), {}, Bytes(0)});
  grids.push_back(mixed);
  grids.push_back(std::vector<BlockWork>(3, BlockWork{0, {}, Bytes(0)}));  // every block of 0 steps
  for (const std::vector<BlockWork>& grid : grids) {
    for (const std::uint64_t heads : {1u, 3u, 8u}) {
      for (const std::size_t slots : {1u, 2u, 5u, 16u, 200u}) {
        for (const LaunchOrder order : {LaunchOrder::x_major, LaunchOrder::heads_major}) {
          CAPTURE(grid.size());
          CAPTURE(heads);
          CAPTURE(slots);
          const std::vector<BlockTurns> want = by_queue(grid, heads, order, slots);
          std::vector<BlockTurns> got;
          walk_launch(grid, heads, order, slots, [&](const BlockTurns& t) { got.push_back(t); });
          REQUIRE(got.size() == grid.size() * heads);
          for (std::size_t i = 0; i < got.size(); ++i) {
            CHECK(got[i].block == want[i].block);
            CHECK(got[i].x == want[i].x);
            CHECK(got[i].slot == want[i].slot);
            CHECK(got[i].start == want[i].start);
            CHECK(got[i].end == want[i].end);
          }
        }
      }
    }
  }
}
