// rowwise — exact softmax with a whole row block of scores on chip: the worked example of
// docs/adding-a-schedule.md, compiled into tests/example_schedule only (the product's catalog lacks it).
//
//   for each Q tile i (B_r rows), one thread block:
//     load Q_i
//     for each K tile j (B_c rows):  load K_j;  S_i[:, j] = Q_i K_jᵀ      (S_i: B_r × N_kv, on chip)
//     softmax over each whole row of S_i (no running maximum, no rescaling)
//     for each V tile j:             load V_j;  O_i += P_i[:, j] V_j
//     store O_i and L_i
// HBM traffic per head: Q and O N·d each, K and V T_r·N_kv·d each (T_r = ⌈N/B_r⌉), L N. Its S_i needs
// B_r·N_kv scores on chip: it runs only where the keys are few, the limit that online softmax removes.
#include <algorithm>
#include <cstdint>
#include <memory>

#include "sim/core/error.h"
#include "sim/schedule/flops.h"
#include "sim/schedule/tile_choice.h"
#include "sim/schedule/tiled_schedule.h"
#include "sim/schedule/tiles.h"

namespace iosim::example {

namespace {

/// 64 × 64, rows halved first when S_i does not fit (its size does not depend on B_c).
constexpr DefaultTile kRowwiseDefault{TileShape{64, 64}, "rowwise: 64 x 64, B_r halved to fit"};

class Rowwise final : public TiledSchedule {
 public:
  explicit Rowwise(const ScheduleContext& ctx)
      : TiledSchedule("rowwise", Pass::fwd, BoundKind::io_aware, 4, 1), p_(ctx.problem) {
    if (p_.causal) throw InputError("rowwise: the causal mask is not modelled (the example counts dense attention)");
    choose(ctx, kRowwiseDefault, Shrink::rows_first);
    const std::uint32_t threads = 32 * warps_;
    const LaunchShape shape{threads, accumulator_registers(tiles_.br * p_.d, threads), plan(tiles_).peak()};
    kernels_.push_back(std::make_unique<GridKernel>("rowwise_fwd", Tiling{p_.n, tiles_.br}, p_.batch_heads(), true,
                                                    shape, [this](const Span& i, const Emitter& e) { block(i, e); }));
  }

 private:
  /// One thread block: Q tile i.
  void block(const Span& i, const Emitter& e) const {
    const Tiling cols{p_.n_kv, tiles_.bc};
    e.load(rows_of(Tensor::Q, i, p_.d));
    e.loop(cols, [&](const Span& j, const Emitter& ej) {
      ej.load(rows_of(Tensor::K, j, p_.d));
      ej.matmul(i.size, j.size, p_.d);
      ej.step();
    });
    e.vector(flops::kSoftmaxPerScore * i.size * p_.n_kv);
    e.special(flops::kExpPerScore * i.size * p_.n_kv);
    e.loop(cols, [&](const Span& j, const Emitter& ej) {
      ej.load(rows_of(Tensor::V, j, p_.d));
      ej.matmul(i.size, p_.d, j.size);
      ej.step();
    });
    e.store(rows_of(Tensor::O, i, p_.d));
    e.store(stat_of(Tensor::L, i));
  }

  SramPlan plan(TileShape t) const override {
    const std::uint64_t r = std::min(t.br, p_.n);
    const std::uint64_t c = std::min(t.bc, p_.n_kv);
    return SramPlan{{SramPhase{"K/V loops",
                               {{"S_i", r, p_.n_kv, DType::fp32, Storage::shared, 1},
                                {"Q_i", r, p_.d, p_.dtype, Storage::shared, 1},
                                {"K_j / V_j", c, p_.d, p_.dtype, Storage::shared, 1},
                                {"O_i", r, p_.d, DType::fp32, Storage::registers, 1}}}}};
  }

  Problem p_;
};

}  // namespace

std::unique_ptr<Schedule> make_rowwise_fwd(const ScheduleContext& ctx) { return std::make_unique<Rowwise>(ctx); }

}  // namespace iosim::example
