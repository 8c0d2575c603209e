// flash3 backward — FlashAttention-3's backward (Shah et al. 2024, arXiv 2407.08608, §3.3 and its
// appendix; Dao-AILab/flash-attention hopper/flash_bwd_kernel_sm90.h, flash_bwd_launch_template.h).
//
//   1. preprocess, per Q tile:   load O_i, dO_i; store D_i = rowsum(dO_i ∘ O_i); store dQacc_i = 0
//   2. main, one thread block per K/V tile j, warp-specialised:
//        producer warpgroup:     TMA-load K_j, V_j once; for each Q tile i, TMA-load Q_i, dO_i, L_i, D_i
//                                into the next of `stages` stages; add each finished dQ_i tile into
//                                dQacc (cp.reduce.async.bulk, fp32: read-modify-write below SRAM)
//        consumer warpgroups:    S = τ·Q_i K_jᵀ; dP = dO_i V_jᵀ; P = exp(S − L_i); dS = P ∘ (dP − D_i)
//                                (P, dS stored to shared memory); dV_j += Pᵀ dO_i; dK_j += dSᵀ Q_i;
//                                dQ_i = dS K_j into shared memory for the producer's reduction
//        store dK_j ← τ·dK_j, dV_j (iosim's kernel: 4-byte pairs straight from the wgmma
//                                accumulators, so each 32-byte sector by two store requests, which the
//                                L2 counts both of: wgmma_pair_store_requests, flash3.h)
//   3. convert, per Q tile:      load dQacc_i; store dQ_i = τ·dQacc_i
// HBM traffic per head: flash2's backward (the same dataflow): reads 2·N·d + 2·N_kv·d + T_c·(2·N·d +
// 2·N) + N·d (fp32), writes N + N·d (fp32) + 2·N_kv·d + N·d, and T_c·N·d fp32 elements reduced into dQacc.
// Causal: a K/V tile's loop starts at the first Q tile that sees it. Grouped-query: as flash2's
// backward, dK, dV per query head into dKexp, dVexp, then flash3_bwd_group_sum sums each group's
// (group_sum.h); how FlashAttention-3's own code reduces a group is not modelled.
// Default tiles, stages of Q and dO, consumer warpgroups: run_mha_bwd_hdim* for sm90 (flash3.h). At
// d = 256 its 64 × 80 needs 228.5 KiB in this plan (more than 227): the default is reduced, with a note.
// Run: iosim --config h200.yaml --n 8192 --d 128 --heads 16 --pass bwd --schedule flash3
#include <algorithm>

#include "sim/core/error.h"
#include "sim/core/mask.h"
#include "sim/schedule/flash2_bwd_kernels.h"
#include "sim/schedule/flash3/flash3.h"
#include "sim/schedule/flops.h"
#include "sim/schedule/tile_choice.h"
#include "sim/schedule/tiled_schedule.h"
#include "sim/schedule/tiles.h"

namespace iosim::detail {

namespace {

class Flash3Backward final : public TiledSchedule {
 public:
  explicit Flash3Backward(const ScheduleContext& ctx)
      : TiledSchedule("flash3", Pass::bwd, BoundKind::io_aware, 0,
                      ctx.kernel.stages != 0 ? ctx.kernel.stages : fa3_backward_stages(ctx.problem)),
        p_(ctx.problem),
        family_(family_of("flash3_bwd")) {
    require_hopper(ctx.hardware, p_);
    choose(ctx, {fa3_backward_tiles(p_), tile_source::kFa3}, Shrink::rows_first);
    groups_ = fa3_groups(family_, ctx.kernel.warps, fa3_backward_consumers(p_));
    warps_ = groups_.threads() / 32;
    if (tiles_.br % 16 != 0 || tiles_.bc % 16 != 0) {
      throw InputError("flash3: warpgroups: tile B_r=" + std::to_string(tiles_.br) + " B_c=" + std::to_string(tiles_.bc) +
                       ": the backward's B_r and B_c must be multiples of 16 (wgmma k16)");
    }
    require_registers(groups_, fragments(), tiles_, "dK, dV and S, dP");
    // iosim's kernel (cuda/kernels/flash3/flash3_bwd.cuh) stores dK, dV from the accumulators in
    // pairs; FlashAttention-3's own epilogue stages them through shared memory (one request a sector).
    const std::uint32_t dkv_requests =
        ctx.kernel.source == KernelSource::iosim
            ? wgmma_pair_store_requests(size_bytes(p_.dtype), ctx.hardware.l2.sector_bytes)
            : 1;
    kernels_ = flash2_backward_kernels(
        "flash3_bwd", p_, tiles_, launch(),
        [this](const Span& i, const Span& j, bool masked, const Emitter& e) { step(i, j, masked, e); }, dkv_requests);
  }

 private:
  void step(const Span& i, const Span& j, bool masked, const Emitter& e) const {
    const std::uint64_t d = p_.d, r = i.size, c = j.size;
    const std::uint64_t elem = size_bytes(p_.dtype);
    const std::uint64_t g = groups_.consumers;
    e.load(rows_of(Tensor::Q, i, d));
    e.load(rows_of(Tensor::dO, i, d));
    e.load(stat_of(Tensor::L, i));
    e.load(stat_of(Tensor::D, i));
    // wgmma operands from shared memory: each consumer warpgroup reads the tile it multiplies against
    // in full, its own share of the other.
    e.matmul(r, c, d, Bytes((c * d + g * r * d) * elem));  // S = τ·Q_i K_jᵀ
    if (masked) e.vector(flops::kMaskPerScore * r * c);
    e.vector(flops::kFlash2RecomputePerScore * r * c);     // P = exp(S − L_i)
    e.special(flops::kExpPerScore * r * c);
    e.matmul(r, c, d, Bytes((c * d + g * r * d) * elem));  // dP = dO_i V_jᵀ
    e.vector(flops::kDsPerScore * r * c);                  // dS = P ∘ (dP − D_i)
    e.matmul(c, d, r, Bytes((r * c + g * r * d) * elem));  // dV_j += Pᵀ dO_i
    e.matmul(c, d, r, Bytes((r * c + g * r * d) * elem));  // dK_j += dSᵀ Q_i
    e.matmul(r, d, c, Bytes((r * c + g * c * d) * elem));  // dQ_i = dS K_j
    e.reduce(rows_of(Tensor::dQacc, i, d));
    e.step();
  }

  /// A consumer thread's fragments: its share of dK_j and dV_j (fp32, held across the loop), and the
  /// larger of S and dP together or the dQ_i accumulator (which reuses their registers once P and dS
  /// are in shared memory).
  double fragments() const {
    const auto r = static_cast<double>(tiles_.br), c = static_cast<double>(tiles_.bc);
    const auto d = static_cast<double>(p_.d);
    const double values = 2 * c * d + std::max(2 * r * c, r * d);
    return values / (kFa3GroupThreads * groups_.consumers);
  }

  /// Its producer copies the Q_i and dO_i tiles it streams by TMA, whole.
  LaunchShape launch() const { return groups_.launch(plan(tiles_).peak(), stages_, tiles_.br); }

  /// FlashAttention-3's backward shared storage: Q_i and dO_i (× stages), K_j and V_j, P_ij and dS_ij
  /// for the transposed products, the dQ_i tile in fp32 for the producer's reduction, L_i and D_i
  /// (× stages); dK_j, dV_j, S and dP accumulate in registers.
  SramPlan plan(TileShape t) const override {
    const std::uint64_t r = std::min(t.br, p_.n);
    const std::uint64_t c = std::min(t.bc, p_.n_kv);
    const DType e = p_.dtype;
    return SramPlan{{SramPhase{"Q loop",
                               {{"Q_i", r, p_.d, e, Storage::shared, stages_},
                                {"dO_i", r, p_.d, e, Storage::shared, stages_},
                                {"K_j", c, p_.d, e, Storage::shared, 1},
                                {"V_j", c, p_.d, e, Storage::shared, 1},
                                {"P_ij", r, c, e, Storage::shared, 1},
                                {"dS_ij", r, c, e, Storage::shared, 1},
                                {"dQ_i", r, p_.d, DType::fp32, Storage::shared, 1},
                                {"L_i D_i", r, 2, DType::fp32, Storage::shared, stages_},
                                {"dK_j dV_j", c, 2 * p_.d, DType::fp32, Storage::registers, 1},
                                {"S/dP_ij", r, 2 * c, DType::fp32, Storage::registers, 1}}}}};
  }

  Problem p_;
  const KernelFamily& family_;
  Fa3Groups groups_;
};

}  // namespace

std::unique_ptr<Schedule> make_flash3_bwd(const ScheduleContext& ctx) { return std::make_unique<Flash3Backward>(ctx); }

}  // namespace iosim::detail
