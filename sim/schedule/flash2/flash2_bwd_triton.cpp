// flash2 backward as the project's Triton kernels run it (--kernels triton): preprocess (D), a dK/dV
// kernel per K/V tile looping over Q tiles, a dQ kernel per Q tile looping over K/V tiles
// (triton_bwd_kernels.h). Counts, per query head (group g, T_r = ⌈N/B_r⌉, T_c = ⌈N_kv/B_c⌉), no mask:
//   preprocess  reads 2·N·d, writes N (fp32)
//   dK/dV       reads N_kv·d·2/g (K, V per K/V head) + T_c·(2·N·d + 2·N) (Q, dO, L, D once per K/V tile),
//               writes 2·N_kv·d/g
//   dQ          reads 2·N·d + 2·N + T_r·2·N_kv·d (K, V once per Q tile), writes N·d
// Causal: each loop visits only the tiles that see each other, the diagonal's masked.
// Launches: each kernel's compiled record (threads, registers, shared memory) where the context has it,
// else an estimate from the tiles (counting needs no compiler).
// Run: iosim --config h100.yaml --n 4096 --d 64 --pass bwd --schedule flash2 --kernels triton --predict
#include <algorithm>

#include "sim/schedule/compiled_of.h"
#include "sim/schedule/defaults.h"
#include "sim/schedule/kernel_menu.h"
#include "sim/schedule/tile_choice.h"
#include "sim/schedule/tiled_schedule.h"
#include "sim/schedule/tiles.h"
#include "sim/schedule/flash2/triton_bwd_kernels.h"

namespace iosim::detail {

namespace {

class Flash2TritonBackward final : public TiledSchedule {
 public:
  explicit Flash2TritonBackward(const ScheduleContext& ctx)
      : TiledSchedule("flash2", Pass::bwd, BoundKind::io_aware, ctx.kernel.warps != 0 ? ctx.kernel.warps : 4u,
                      ctx.kernel.stages != 0 ? ctx.kernel.stages : 3u),
        p_(ctx.problem),
        request_(ctx.kernel) {
    const bool user = ctx.tiles.br.has_value() || ctx.tiles.bc.has_value();
    choose(ctx, {fa2_backward_tiles(p_, ctx.hardware, user), tile_source::kFa2}, Shrink::rows_first);
    kernels_ = triton_backward_kernels(p_, tiles_, {launch(kTritonBwdPreprocess), launch(kTritonBwdDkdv),
                                                    launch(kTritonBwdDq)});
  }

  std::string variant() const override { return "Triton"; }

 private:
  /// The compiled record's launch where there is one; else 32·warps threads, the fp32 accumulators in
  /// registers and the streamed tiles' `stages` copies in shared memory.
  LaunchShape launch(const char* kernel) const {
    if (const CompiledKernel* k = compiled_record_of(request_, kernel); k != nullptr && k->compiled()) {
      return {32 * k->warps, k->registers, Bytes(k->shared_bytes), k->stages, 0};
    }
    const std::uint32_t threads = 32 * warps_;
    const std::uint64_t r = tiles_.br, c = tiles_.bc, d = p_.d, e = size_bytes(p_.dtype);
    if (std::string_view(kernel) == kTritonBwdPreprocess) return {threads, accumulator_registers(r * d, threads), Bytes(0)};
    if (std::string_view(kernel) == kTritonBwdDkdv) {
      return {threads, accumulator_registers(2 * c * d + r * c, threads), Bytes(stages_ * 2 * r * d * e), stages_};
    }
    return {threads, accumulator_registers(r * d + r * c, threads), Bytes(stages_ * 2 * c * d * e), stages_};
  }

  /// The dK/dV kernel's loop, the larger of the two: Qᵀ_i and dO_i streamed through `stages` copies in
  /// shared memory; K_j, V_j, dK_j, dV_j and Pᵀ in registers.
  SramPlan plan(TileShape t) const override {
    const std::uint64_t r = std::min(t.br, p_.n);
    const std::uint64_t c = std::min(t.bc, p_.n_kv);
    const DType e = p_.dtype;
    return SramPlan{{SramPhase{"Q loop",
                               {{"Q_i", r, p_.d, e, Storage::shared, stages_},
                                {"dO_i", r, p_.d, e, Storage::shared, stages_},
                                {"K_j V_j", c, 2 * p_.d, e, Storage::registers, 1},
                                {"dK_j dV_j", c, 2 * p_.d, DType::fp32, Storage::registers, 1},
                                {"Pᵀ_ij", c, r, DType::fp32, Storage::registers, 1}}}}};
  }

  Problem p_;
  KernelRequest request_;
};

}  // namespace

std::unique_ptr<Schedule> make_flash2_bwd_triton(const ScheduleContext& ctx) {
  return std::make_unique<Flash2TritonBackward>(ctx);
}

}  // namespace iosim::detail
