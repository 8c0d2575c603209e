// flash1 backward — FlashAttention's backward, Algorithm 4 of Dao et al. 2022 (appendix B).
//
// Recomputes P from Q, K and the l, m the forward saved, instead of reading a stored P:
//   dQ = 0, dK = 0, dV = 0 written to HBM
//   for each K/V tile j:                         load K_j, V_j; dK_j = dV_j = 0 on chip
//     for each Q tile i:                         load Q_i, O_i, dO_i, dQ_i, l_i, m_i
//       S = τ·Q_i K_jᵀ; P = diag(l_i)⁻¹ exp(S − m_i)
//       dV_j += Pᵀ dO_i;  dP = dO_i V_jᵀ;  D_i = rowsum(dO_i ∘ O_i);  dS = P ∘ (dP − D_i)
//       dQ_i += τ·dS K_j;                        store dQ_i
//       dK_j += τ·dSᵀ Q_i
//     store dK_j, dV_j
// HBM traffic per head: reads 2·N_kv·d + T_c·(4·N·d + 2·N), writes N·d + 2·N_kv·d (initialisation)
// + T_c·N·d + 2·N_kv·d. Five matrix products per tile instead of the forward's two: recomputing S
// costs 2·N·N_kv·d FLOPs more than standard attention's backward.
// Grouped K/V heads (group g > 1), as cuda/kernels/flash1_bwd.cuh runs them: the initialisation and
// the main kernel write dK, dV per query head, into dKexp and dVexp, and flash1_bwd_group_sum
// (group_sum.h) sums each group's into dK and dV.
// Run: iosim --config a100.yaml --n 1024 --d 64 --pass bwd --schedule flash1
#include <algorithm>

#include "sim/core/mask.h"
#include "sim/schedule/defaults.h"
#include "sim/schedule/flops.h"
#include "sim/schedule/group_sum.h"
#include "sim/schedule/tile_choice.h"
#include "sim/schedule/tiled_schedule.h"
#include "sim/schedule/tiles.h"

namespace iosim::detail {

namespace {

class Flash1Backward final : public TiledSchedule {
 public:
  explicit Flash1Backward(const ScheduleContext& ctx)
      : TiledSchedule("flash1", Pass::bwd, BoundKind::io_aware, ctx.kernel.warps != 0 ? ctx.kernel.warps : 4u, 1),
        p_(ctx.problem),
        dk_(per_query_head_grad(p_, Tensor::dK)),
        dv_(per_query_head_grad(p_, Tensor::dV)) {
    choose(ctx, {paper_tiles(p_, ctx.hardware), tile_source::kPaper}, Shrink::rows_first);
    const std::uint64_t bh = p_.batch_heads();
    const LaunchShape fill{128, kBaseRegisters, Bytes(0)};
    kernels_.push_back(std::make_unique<GridKernel>("flash1_bwd_init_dq", Tiling{p_.n, tiles_.br}, bh, true, fill,
                                                    [this](const Span& i, const Emitter& e) {
                                                      e.store(rows_of(Tensor::dQ, i, p_.d));
                                                      e.step();
                                                    }));
    kernels_.push_back(std::make_unique<GridKernel>("flash1_bwd_init_dkv", Tiling{p_.n_kv, tiles_.bc}, bh, true,
                                                    fill, [this](const Span& j, const Emitter& e) {
                                                      e.store(rows_of(dk_, j, p_.d));
                                                      e.store(rows_of(dv_, j, p_.d));
                                                      e.step();
                                                    }));
    kernels_.push_back(std::make_unique<GridKernel>("flash1_bwd", Tiling{1, 1}, bh, true, launch(),
                                                    [this](const Span&, const Emitter& e) { main(e); }));
    if (auto sum = group_sum_kernel("flash1_bwd", p_)) kernels_.push_back(std::move(sum));
  }

 private:
  /// Lines 5–24 of Algorithm 4, one thread block per head.
  void main(const Emitter& e) const {
    const std::uint64_t d = p_.d;
    const Tiling rows{p_.n, tiles_.br};
    const Tiling cols{p_.n_kv, tiles_.bc};
    const Mask mask(p_);
    e.loop_if_uniform(!mask.masks(), cols, [&](const Span& j, const Emitter& ej) {
      const QRange q = mask.q_for_cols(j.begin, j.begin + j.size, rows);
      if (!q.empty()) {
        ej.load(rows_of(Tensor::K, j, d));
        ej.load(rows_of(Tensor::V, j, d));
      }
      ej.loop(rows, q.start, q.full_lo, [&](const Span& i, const Emitter& ei) { step(i, j, true, ei); });
      ej.loop(rows, q.full_lo, q.full_hi, [&](const Span& i, const Emitter& ei) { step(i, j, false, ei); });
      ej.loop(rows, q.full_hi, q.end, [&](const Span& i, const Emitter& ei) { step(i, j, true, ei); });
      ej.store(rows_of(dk_, j, d));
      ej.store(rows_of(dv_, j, d));
    });
  }

  /// Lines 8–20 of Algorithm 4 for Q tile i and K/V tile j.
  void step(const Span& i, const Span& j, bool masked, const Emitter& e) const {
    const std::uint64_t d = p_.d, r = i.size, c = j.size;
    const std::uint64_t elem = size_bytes(p_.dtype);
    const Bytes rd(r * d * elem), cd(c * d * elem), rc(r * c * elem);
    e.load(rows_of(Tensor::Q, i, d));
    e.load(rows_of(Tensor::O, i, d));
    e.load(rows_of(Tensor::dO, i, d));
    e.load(rows_of(Tensor::dQ, i, d));
    e.load(stat_of(Tensor::l, i));
    e.load(stat_of(Tensor::m, i));
    e.matmul(r, c, d, rd + cd * warps_);                               // S = τ·Q_i K_jᵀ
    if (masked) e.vector(flops::kMaskPerScore * r * c);
    e.vector(flops::kFlash1RecomputePerScore * r * c);                  // P = diag(l)⁻¹ exp(S − m)
    e.special(flops::kExpPerScore * r * c);
    e.matmul(c, d, r, rc + rd * warps_);                               // dV_j += Pᵀ dO_i
    e.matmul(r, c, d, rd + cd * warps_);                               // dP = dO_i V_jᵀ
    e.vector(flops::kRowDotPerElement * r * d);                         // D_i = rowsum(dO_i ∘ O_i)
    e.vector(flops::kDsPerScore * r * c);                               // dS = P ∘ (dP − D_i)
    e.matmul(r, d, c, rc + cd * warps_);                               // dQ_i += τ·dS K_j
    e.vector(flops::kScalePerElement * r * d);
    e.store(rows_of(Tensor::dQ, i, d));
    e.matmul(c, d, r, rc + rd * warps_);                               // dK_j += τ·dSᵀ Q_i
    e.vector(flops::kScalePerElement * c * d);
    e.step();
  }

  LaunchShape launch() const {
    const std::uint32_t threads = 32 * warps_;
    // dK_j, dV_j live through the loop; then S and dP, or dQ_i, whichever is larger.
    const double fragments =
        static_cast<double>(2 * tiles_.bc * p_.d + std::max(2 * tiles_.br * tiles_.bc, tiles_.br * p_.d)) / threads;
    return {threads, accumulator_registers(tiles_.br * tiles_.bc, threads), plan(tiles_).peak(), 1, fragments,
            tiles_.br, tiles_.bc};
  }

  SramPlan plan(TileShape t) const override {
    const std::uint64_t r = std::min(t.br, p_.n);
    const std::uint64_t c = std::min(t.bc, p_.n_kv);
    const DType e = p_.dtype;
    return SramPlan{{SramPhase{"inner step",
                               {{"K_j", c, p_.d, e, Storage::shared, 1},
                                {"V_j", c, p_.d, e, Storage::shared, 1},
                                {"dK_j dV_j (fp32)", c, 2 * p_.d, DType::fp32, Storage::shared, 1},
                                {"Q_i O_i dO_i dQ_i", r, 4 * p_.d, e, Storage::shared, 1},
                                {"S/P_ij dP/dS_ij", r, 2 * c, e, Storage::shared, 1},
                                {"l_i m_i D_i", r, 3, DType::fp32, Storage::shared, 1}}}}};
  }

  Problem p_;
  Tensor dk_, dv_;  ///< where dK_j, dV_j go: dK, dV, or with grouped K/V heads dKexp, dVexp
};

}  // namespace

std::unique_ptr<Schedule> make_flash1_bwd(const ScheduleContext& ctx) { return std::make_unique<Flash1Backward>(ctx); }

}  // namespace iosim::detail
