#include "sim/gpu/spill_stores.h"

#include "sim/core/dtype.h"
#include "sim/core/error.h"
#include "sim/core/event_sink.h"
#include "sim/schedule/kernel_family.h"

namespace iosim {

namespace {

/// Counts a block's steps; ignores its transfers and arithmetic.
class StepCounter final : public EventSink {
 public:
  void on_transfer(const Transfer&) override {}
  void on_compute(const Compute&) override {}
  void on_step() override { ++steps; }
  std::uint64_t steps = 0;
};

/// Steps of one grid head's blocks, each walked on its own (Walk::each, as the GPU model runs them); a
/// uniform kernel's runs of equal blocks are walked once and multiplied.
std::uint64_t steps_per_head(const Kernel& k) {
  std::uint64_t steps = 0;
  for_spans(k.grid_x(), k.uniform() ? Walk::runs : Walk::each, [&](const Span& s) {
    StepCounter c;
    k.block(Span{s.first, 1, s.size, s.begin}, Emitter(c, Walk::each));
    steps += c.steps * s.count;
  });
  return steps;
}

}  // namespace

std::uint64_t fa2_compiled_head_dim(std::uint64_t d) {
  const std::uint64_t step = d <= 128 ? 32 : 64;
  return (d + step - 1) / step * step;
}

std::uint64_t spill_write_sectors(const Kernel& k, const ScheduleContext& ctx) {
  const Problem& p = ctx.problem;
  if (p.dtype != DType::fp16 || p.window != 0) return 0;  // measured in fp16 kernels without windows only
  if (ctx.hardware.arch != "sm_90") return 0;                // and in their sm_90 code (another arch's may spill otherwise)
  const KernelFamily& family = family_of(k.name(), ctx.kernel.source);
  const SpillStores* s = spill_stores(family, k.name(), fa2_compiled_head_dim(p.d), p.causal);
  if (s == nullptr) return 0;
  const std::uint64_t blocks = checked_mul(k.grid_x().count(), k.grid_heads());
  const std::uint64_t steps = s->per_step == 0 ? 0 : checked_mul(steps_per_head(k), k.grid_heads());
  const std::uint64_t bytes = checked_mul(blocks, s->per_block) + checked_mul(steps, s->per_step);
  return bytes / ctx.hardware.l2.sector_bytes;
}

void add_spill_stores(Prediction& p, const std::vector<const Kernel*>& kernels, const ScheduleContext& ctx) {
  for (std::size_t i = 0; i < kernels.size() && i < p.kernels.size(); ++i) {
    const std::uint64_t s = spill_write_sectors(*kernels[i], ctx);
    p.kernels[i].l2_spill_write_sectors = s;
    p.kernels[i].l2_write_sectors += s;
  }
}

}  // namespace iosim
