#include "sim/gpu/launch_work.h"

#include <algorithm>

namespace iosim {

void schedule_launch(const std::vector<BlockWork>& profiles, std::uint64_t heads, LaunchOrder order,
                     std::uint64_t sms, KernelPrediction& out) {
  std::vector<SmLoad> load(sms);
  std::vector<SmLoad*> on(out.occupancy.concurrent);  // slot i's SM
  for (std::size_t i = 0; i < on.size(); ++i) on[i] = &load[i % sms];
  walk_launch(profiles, heads, order, on.size(), [&](const BlockTurns& t) {
    const BlockWork& p = profiles[t.x];
    SmLoad& l = *on[t.slot];
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
