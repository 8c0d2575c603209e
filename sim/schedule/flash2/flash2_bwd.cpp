// flash2 backward — FlashAttention-2's backward, as its CUDA code runs it (three kernels).
//
//   1. preprocess, per Q tile:   load O_i, dO_i; store D_i = rowsum(dO_i ∘ O_i); store dQacc_i = 0
//   2. main, one thread block per K/V tile j:   load K_j, V_j
//        for each Q tile i:                     load Q_i, dO_i, L_i, D_i
//          S = τ·Q_i K_jᵀ; P = exp(S − L_i); dV_j += Pᵀ dO_i; dP = dO_i V_jᵀ; dS = P ∘ (dP − D_i)
//          dQacc_i += dS K_j                    atomic adds in fp32: read-modify-write below SRAM
//          dK_j += dSᵀ Q_i
//        store dK_j ← τ·dK_j, dV_j
//   3. convert, per Q tile:      load dQacc_i; store dQ_i = τ·dQacc_i
// The FlashAttention-2 paper's Algorithm 2 also loads O_i in the inner loop; its code does not (D
// replaces it), and neither does this count.
// HBM traffic per head: reads 2·N·d + 2·N_kv·d + T_c·(2·N·d + 2·N) + N·d (fp32), writes N + N·d (fp32)
// + 2·N_kv·d + N·d, and T_c·N·d fp32 elements reduced (read and written) into dQacc.
// Kernels: preprocess and convert one block per Q tile; main one block per K/V tile and head.
// Grouped K/V heads (group g > 1): main stores dK_j, dV_j per query head, into dKexp and dVexp, and a
// fourth kernel, flash2_bwd_group_sum, sums each group's into dK and dV (group_sum.h), as
// cuda/kernels/flash2_bwd.cuh runs it.
// Default tiles: the kernel menu's default kernel where one is compiled for d (kernel_menu.h), with its
// warps and stages; else, and always with --kernels pytorch, FlashAttention-2's run_mha_bwd_hdim*
// (kBlockM × kBlockN, defaults.h), 8 warps and Q_i double-buffered.
// Run: iosim --config a100.yaml --n 4096 --d 64 --pass bwd --schedule flash2
#include <algorithm>

#include "sim/core/mask.h"
#include "sim/schedule/defaults.h"
#include "sim/schedule/flash2_bwd_kernels.h"
#include "sim/schedule/kernel_menu.h"
#include "sim/schedule/flops.h"
#include "sim/schedule/tile_choice.h"
#include "sim/schedule/tiled_schedule.h"
#include "sim/schedule/tiles.h"

namespace iosim::detail {

/// flash2's backward as the project's Triton kernels run it (make_flash2_bwd's choice under --kernels
/// triton; flash2_bwd_triton.cpp).
std::unique_ptr<Schedule> make_flash2_bwd_triton(const ScheduleContext& ctx);

namespace {

class Flash2Backward final : public TiledSchedule {
 public:
  explicit Flash2Backward(const ScheduleContext& ctx)
      : TiledSchedule("flash2", Pass::bwd, BoundKind::io_aware), p_(ctx.problem) {
    const bool user = ctx.tiles.br.has_value() || ctx.tiles.bc.has_value();
    // FlashAttention-2's 8 warps and double-buffered Q_i, where the menu has no kernel to take.
    const DefaultKernel def = menu_kernel_or(
        name(), Pass::bwd, ctx, {{fa2_backward_tiles(p_, ctx.hardware, user), tile_source::kFa2}, 8, 2});
    warps_ = def.warps;
    stages_ = def.stages;  // before choose: the plan holds `stages_` copies of Q_i
    choose(ctx, def.tile, Shrink::rows_first);
    kernels_ = flash2_backward_kernels("flash2_bwd", p_, tiles_, launch(),
                                       [this](const Span& i, const Span& j, bool masked, const Emitter& e) {
                                         step(i, j, masked, e);
                                       });
  }

 private:
  void step(const Span& i, const Span& j, bool masked, const Emitter& e) const {
    const std::uint64_t d = p_.d, r = i.size, c = j.size;
    const std::uint64_t elem = size_bytes(p_.dtype);
    e.load(rows_of(Tensor::Q, i, d));
    e.load(rows_of(Tensor::dO, i, d));
    e.load(stat_of(Tensor::L, i));
    e.load(stat_of(Tensor::D, i));
    // Operands from shared memory: each warp reads the tile it multiplies against in full.
    e.matmul(r, c, d, Bytes((c * d + warps_ * r * d) * elem));  // S = τ·Q_i K_jᵀ
    if (masked) e.vector(flops::kMaskPerScore * r * c);
    e.vector(flops::kFlash2RecomputePerScore * r * c);           // P = exp(S − L_i)
    e.special(flops::kExpPerScore * r * c);
    e.matmul(c, d, r, Bytes((r * c + warps_ * r * d) * elem));  // dV_j += Pᵀ dO_i
    e.matmul(r, c, d, Bytes((c * d + warps_ * r * d) * elem));  // dP = dO_i V_jᵀ
    e.vector(flops::kDsPerScore * r * c);                        // dS = P ∘ (dP − D_i)
    e.matmul(r, d, c, Bytes((r * c + warps_ * c * d) * elem));  // dQacc_i += dS K_j
    e.reduce(rows_of(Tensor::dQacc, i, d));
    e.matmul(c, d, r, Bytes((r * c + warps_ * r * d) * elem));  // dK_j += dSᵀ Q_i
    e.step();
  }

  LaunchShape launch() const {
    const std::uint32_t threads = 32 * warps_;
    // dK_j and dV_j accumulate in registers, with one B_r × B_c tile of S / dP.
    const double fragments =
        static_cast<double>(2 * tiles_.bc * p_.d + std::max(2 * tiles_.br * tiles_.bc, tiles_.br * p_.d)) / threads;
    return {threads, accumulator_registers(2 * tiles_.bc * p_.d + tiles_.br * tiles_.bc, threads), plan(tiles_).peak(),
            stages_, fragments, tiles_.br, tiles_.bc};
  }

  /// FlashAttention-2's Flash_bwd_kernel_traits: Q_i (stages copies, double-buffered by default) and
  /// dO_i, K_j and V_j, dS_ij and P_ij in shared memory (2·(3·B_r·d + 2·B_c·d + 2·B_r·B_c) bytes in
  /// fp16: 144 KiB at d = 64, 128 × 128, the threshold its launcher tests); dK_j, dV_j and S/dP
  /// accumulate in registers.
  SramPlan plan(TileShape t) const override {
    const std::uint64_t r = std::min(t.br, p_.n);
    const std::uint64_t c = std::min(t.bc, p_.n_kv);
    const DType e = p_.dtype;
    return SramPlan{{SramPhase{"Q loop",
                               {{"Q_i", r, p_.d, e, Storage::shared, stages_},
                                {"dO_i", r, p_.d, e, Storage::shared, 1},
                                {"K_j", c, p_.d, e, Storage::shared, 1},
                                {"V_j", c, p_.d, e, Storage::shared, 1},
                                {"dS_ij", r, c, e, Storage::shared, 1},
                                {"P_ij", r, c, e, Storage::shared, 1},
                                {"dK_j dV_j", c, 2 * p_.d, DType::fp32, Storage::registers, 1},
                                {"S/dP_ij", r, c, DType::fp32, Storage::registers, 1}}}}};
  }

  Problem p_;
};

}  // namespace

std::unique_ptr<Schedule> make_flash2_bwd(const ScheduleContext& ctx) {
  // The project's Triton kernels have a dataflow of their own (flash2_bwd_triton.cpp).
  if (ctx.kernel.source == KernelSource::triton) return make_flash2_bwd_triton(ctx);
  return std::make_unique<Flash2Backward>(ctx);
}

}  // namespace iosim::detail
