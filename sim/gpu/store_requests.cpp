#include "sim/gpu/store_requests.h"

#include <bit>

#include "sim/core/event_sink.h"
#include "sim/core/units.h"
#include "sim/gpu/address_map.h"

namespace iosim {

namespace {

/// Sums (requests_per_sector − 1) × sectors over one block's stores, the tiles placed as grid head
/// `head` reads them; ignores loads, reductions and arithmetic.
class RepeatedStores final : public EventSink {
 public:
  RepeatedStores(const AddressMap& amap, const Kernel& k, std::uint64_t head) : amap_(amap), k_(k), head_(head) {}
  void on_transfer(const Transfer& t) override {
    if (t.dir != Direction::sram_to_hbm || t.requests_per_sector <= 1) return;
    lines_.clear();
    amap_.lines(t.tile, head_, k_.head_map(t.tile.tensor), lines_);
    std::uint64_t sectors = 0;
    for (const LineAccess& a : lines_) sectors += static_cast<std::uint64_t>(std::popcount(a.mask));
    total = checked_add(total, checked_mul(checked_mul(sectors, t.requests_per_sector - 1), t.times));
  }
  void on_compute(const Compute&) override {}
  std::uint64_t total = 0;

 private:
  const AddressMap& amap_;
  const Kernel& k_;
  std::uint64_t head_;
  std::vector<LineAccess> lines_;
};

/// Whether any store of a kernel's blocks has more than one request a sector.
class AnyRepeated final : public EventSink {
 public:
  void on_transfer(const Transfer& t) override { any = any || (t.dir == Direction::sram_to_hbm && t.requests_per_sector > 1); }
  void on_compute(const Compute&) override {}
  bool any = false;
};

}  // namespace

std::uint64_t repeated_store_sectors(const Kernel& k, const ScheduleContext& ctx) {
  AnyRepeated probe;
  for_spans(k.grid_x(), Walk::runs, [&](const Span& s) { k.block(Span{s.first, 1, s.size, s.begin}, Emitter(probe, Walk::runs)); });
  if (!probe.any) return 0;
  const AddressMap amap(ctx.problem, ctx.hardware.l2.line_bytes, ctx.hardware.l2.sector_bytes);
  std::uint64_t total = 0;
  for (std::uint64_t head = 0; head < k.grid_heads(); ++head) {
    for_spans(k.grid_x(), Walk::each, [&](const Span& s) {
      RepeatedStores r(amap, k, head);
      k.block(s, Emitter(r, Walk::runs));
      total = checked_add(total, r.total);
    });
  }
  return total;
}

void add_store_requests(Prediction& p, const std::vector<const Kernel*>& kernels, const ScheduleContext& ctx) {
  for (std::size_t i = 0; i < kernels.size() && i < p.kernels.size(); ++i) {
    p.kernels[i].l2_write_sectors += repeated_store_sectors(*kernels[i], ctx);
  }
}

}  // namespace iosim
