// flash2 forward — FlashAttention-2 (Dao 2023, arXiv 2307.08691).
//
// One thread block per Q tile and head; K and V stream through it:
//   for each Q tile i (B_r rows), one thread block:   load Q_i
//     for each K/V tile j (B_c rows):                 load K_j, V_j
//       S_ij = Q_i K_jᵀ; online softmax (m, l on chip); O_i ← α·O_i + P_ij V_j
//     O_i ← O_i / l;                                   store O_i, L_i = m + log l
// HBM traffic per head: reads N·d + 2·T_r·N_kv·d, writes N·d (+ N fp32 for L).
// Causal: the K/V loop stops at the last tile the block's rows see; tiles the diagonal crosses are
// computed whole and masked.
// Kernel: grid (T_r, batch × heads), 4 warps (8 for d > 128) each owning B_r/warps rows; Q, K, V in
// shared memory (K and V × stages), S and O accumulated in registers. Each warp reads all of K_j and V_j
// from shared memory for its products.
// Default tiles: the kernel menu's default kernel where one is compiled for d (cuda/kernels/menu.csv,
// kernel_menu.h); else, and always with --kernels pytorch, those of FlashAttention-2's CUDA code for the
// head dimension (defaults.h).
// PyTorch's kernels (--kernels pytorch) on a grid that would leave SMs idle: FlashAttention-2's forward
// (flash_api.cpp, set_params_splitkv) asks its split heuristic, over batch × heads × ⌈n/64⌉ blocks on two
// slots an SM, how many ways to split the K/V loop; with more than one it runs its split-KV kernel
// (B_r = 64, B_c = 256, 128 or 64 by d) and a combine kernel, as flashdecode-heads does. Tiles the user
// gives keep the one-block-per-Q-tile kernel.
// Run: iosim --config h100.yaml --n 8192 --d 64 --schedule flash2
#include <algorithm>

#include "sim/core/mask.h"
#include "sim/schedule/compiled_kernel.h"
#include "sim/schedule/defaults.h"
#include "sim/schedule/flash2_step.h"
#include "sim/schedule/flashdecode/flashdecode.h"
#include "sim/schedule/kernel_menu.h"
#include "sim/schedule/flops.h"
#include "sim/schedule/tile_choice.h"
#include "sim/schedule/tiled_schedule.h"
#include "sim/schedule/tiles.h"

namespace iosim::detail {

namespace {

class Flash2Forward final : public TiledSchedule {
 public:
  explicit Flash2Forward(const ScheduleContext& ctx)
      : TiledSchedule("flash2", Pass::fwd, BoundKind::io_aware,
                      ctx.kernel.warps != 0 ? ctx.kernel.warps : (ctx.problem.d <= 128 ? 4u : 8u),
                      ctx.kernel.stages != 0 ? ctx.kernel.stages : 1u),
        p_(ctx.problem),
        compiled_(ctx.kernel.compiled) {
    const bool user = ctx.tiles.br.has_value() || ctx.tiles.bc.has_value();
    choose(ctx, menu_tile_or(name(), Pass::fwd, ctx, {fa2_forward_tiles(p_, ctx.hardware, user), tile_source::kFa2}),
           Shrink::cols_first);
    check_page_tile(p_, tiles_.bc, name());
    const Tiling rows{p_.n, tiles_.br};
    kernels_.push_back(std::make_unique<GridKernel>(
        "flash2_fwd", rows, p_.batch_heads(), !Mask(p_).masks(), launch(),
        [this](const Span& i, const Emitter& e) { block(i, e); }));
  }

 private:
  /// One thread block: Q tile i against every K/V tile its rows see.
  void block(const Span& i, const Emitter& e) const {
    flash2_forward_block(e, p_, i, tiles_.bc, [&](const Span& j, bool masked, const Emitter& ej) {
      load_block_table(ej, p_, j);
      flash2_forward_step(ej, i.size, j, masked, p_.d, p_.dtype, warps_);
    });
  }

  LaunchShape launch() const {
    // A compiled kernel (--kernels triton) launches with its own registers and shared memory, which the
    // GPU model's concurrency and the time model's occupancy then take.
    if (compiled_) {
      return {32 * compiled_->warps, compiled_->registers, Bytes(compiled_->shared_bytes), compiled_->stages, 0};
    }
    const std::uint32_t threads = 32 * warps_;
    // S and O accumulate in fp32 registers; the project's kernel keeps Q_i's fragments in registers too.
    const double fragments =
        static_cast<double>(tiles_.br * tiles_.bc + tiles_.br * p_.d + tiles_.br * p_.d / 2) / threads;
    return {threads, accumulator_registers(tiles_.br * tiles_.bc + tiles_.br * p_.d, threads), plan(tiles_).peak(),
            stages_, fragments, tiles_.br, tiles_.bc};
  }

  SramPlan plan(TileShape t) const override { return SramPlan{{flash2_forward_loop(p_, t, stages_)}}; }

  Problem p_;
  std::shared_ptr<const CompiledKernel> compiled_;  ///< --kernels triton: the kernel's compiled record
};

/// flash2's forward as FlashAttention-2's split-KV kernels run it: flashdecode-heads' kernels and counts
/// under flash2's name.
class Flash2SplitForward final : public Schedule {
 public:
  Flash2SplitForward(const ScheduleContext& ctx, std::uint64_t splits) {
    ScheduleContext split = ctx;
    split.splits = splits;
    inner_ = make_flashdecode_heads_fwd(split);
    tile_source_ = inner_->tile_source();
    notes_ = inner_->notes();
    notes_.push_back("PyTorch's FlashAttention-2 splits the K/V loop " + std::to_string(splits) +
                     " ways on this grid (its split-KV kernel, then a combine)");
  }

  std::string_view name() const override { return "flash2"; }
  Pass pass() const override { return Pass::fwd; }
  TileShape tiles() const override { return inner_->tiles(); }
  SramPlan sram() const override { return inner_->sram(); }
  BoundKind bound() const override { return BoundKind::io_aware; }
  std::vector<std::string> notes() const override { return notes_; }
  std::string variant() const override { return "split-KV"; }
  std::vector<const Kernel*> kernels() const override { return inner_->kernels(); }
  KernelRequest kernel_config() const override { return inner_->kernel_config(); }
  void emit(const Emitter& e) const override { inner_->emit(e); }

 private:
  std::unique_ptr<Schedule> inner_;
  std::vector<std::string> notes_;
};

/// The K/V splits PyTorch's FlashAttention-2 forward picks for `ctx` (1: its one-block-per-Q-tile kernel).
std::uint64_t pytorch_forward_splits(const ScheduleContext& ctx) {
  if (ctx.kernel.source != KernelSource::pytorch || ctx.tiles.br.has_value() || ctx.tiles.bc.has_value()) return 1;
  return flashdecode_splits(ctx.problem, fa2_splitkv_tiles(ctx.problem), ctx.hardware.sm.count, /*packed=*/false);
}

}  // namespace

std::unique_ptr<Schedule> make_flash2_fwd(const ScheduleContext& ctx) {
  if (const std::uint64_t splits = pytorch_forward_splits(ctx); splits > 1) {
    return std::make_unique<Flash2SplitForward>(ctx, splits);
  }
  return std::make_unique<Flash2Forward>(ctx);
}

}  // namespace iosim::detail
