#include "sim/gpu/launch_work.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <utility>

namespace iosim {

void walk_launch(const std::vector<BlockWork>& profiles, std::uint64_t heads, LaunchOrder order, std::size_t slots,
                 const std::function<void(const BlockTurns&)>& ended) {
  const std::uint64_t xs = profiles.size(), blocks = xs * heads;
  const std::size_t n = std::min<std::uint64_t>(slots, blocks);
  const auto x_of = [&](std::uint64_t b) { return order == LaunchOrder::x_major ? b % xs : b / heads; };
  std::vector<BlockTurns> running(n);
  using Turn = std::pair<std::uint64_t, std::size_t>;  // (the turn the block ends, its slot)
  std::priority_queue<Turn, std::vector<Turn>, std::greater<>> ends;
  std::uint64_t launched = 0;
  for (std::size_t i = 0; i < n; ++i) {
    running[i] = {launched, i, 0, profiles[x_of(launched)].steps};
    ++launched;
    ends.push({running[i].end, i});
  }
  while (!ends.empty()) {
    const auto [turn, i] = ends.top();
    ends.pop();
    ended(running[i]);
    if (launched < blocks) {
      running[i] = {launched, i, turn + 1, turn + 1 + profiles[x_of(launched)].steps};
      ++launched;
      ends.push({running[i].end, i});
    }
  }
}

void schedule_launch(const std::vector<BlockWork>& profiles, std::uint64_t heads, LaunchOrder order,
                     std::uint64_t sms, KernelPrediction& out) {
  const std::uint64_t xs = profiles.size();
  const auto x_of = [&](std::uint64_t b) { return order == LaunchOrder::x_major ? b % xs : b / heads; };
  std::vector<SmLoad> load(sms);
  walk_launch(profiles, heads, order, out.occupancy.concurrent, [&](const BlockTurns& t) {
    const BlockWork& p = profiles[x_of(t.block)];
    SmLoad& l = load[t.slot % sms];
    l.matmul_flops += static_cast<double>(p.compute.matmul.value);
    l.vector_flops += static_cast<double>(p.compute.vector.value);
    l.special_ops += static_cast<double>(p.compute.special.value);
    l.sram_bytes += static_cast<double>(p.sram.value);
    out.matmul += p.compute.matmul;
    out.vector += p.compute.vector;
    out.special += p.compute.special;
    out.sram += p.sram;
  });
  for (const SmLoad& l : load) {
    out.busiest.matmul_flops = std::max(out.busiest.matmul_flops, l.matmul_flops);
    out.busiest.vector_flops = std::max(out.busiest.vector_flops, l.vector_flops);
    out.busiest.special_ops = std::max(out.busiest.special_ops, l.special_ops);
    out.busiest.sram_bytes = std::max(out.busiest.sram_bytes, l.sram_bytes);
  }
}

}  // namespace iosim
