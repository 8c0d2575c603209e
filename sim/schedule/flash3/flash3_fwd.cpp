// flash3 forward — FlashAttention-3 (Shah et al. 2024, arXiv 2407.08608, Algorithm 1 and §3.1-3.2) as
// its Hopper code runs it (Dao-AILab/flash-attention hopper/flash_fwd_kernel_sm90.h).
//
// One thread block per Q tile and head, warp-specialised:
//   producer warpgroup:  TMA-load Q_i once; for each K/V tile j, TMA-load K_j, V_j into the next of
//                        `stages` shared-memory stages (waits until the consumers release it)
//   consumer warpgroups (1-3, each B_r / groups rows in m64 tiles), for each K/V tile j:
//                        wait K_j; S = Q_i K_jᵀ (wgmma, both operands in shared memory);
//                        online softmax in registers (m, l); wait V_j; O ← α·O + P V_j (wgmma, P from
//                        registers); release the stage. The warpgroups ping-pong (one's softmax while
//                        another's products run) and each overlaps its softmax with its next S product.
//   epilogue:            O ← O / l staged in shared memory (over V's stages) and TMA-stored; L = m + log l
// HBM traffic per head: that of any Q-outer tiled schedule (flash2's): reads N·d + 2·T_r·N_kv·d, writes
// N·d (+ N fp32 for L). Causal: the K/V loop stops at the last tile the block's rows see; tiles the
// diagonal crosses are computed whole and masked. Grouped-query: K/V read once per query head (the
// kernel's default without PackGQA), as flash2. Paged K/V (sim/core/paging.h): K and V as contiguous,
// plus each K/V tile's block-table entries once a tile, as flash2's forward.
// SRAM: Q_i + stages × (K_j + V_j) (+ P_ij where P is staged through shared memory); the epilogue's O
// staging shares V's space. Registers: per consumer thread S, O and P's fragments within setmaxnreg's
// budget (flash3.h).
// Default tiles: tile_size_fwd_sm90 (flash3.h); 2 stages, as FlashAttention-3's forward.
// Run: iosim --config h200.yaml --n 8192 --d 128 --heads 16 --schedule flash3 --predict
#include <algorithm>

#include "sim/core/error.h"
#include "sim/core/mask.h"
#include "sim/core/paging.h"
#include "sim/schedule/flash2_step.h"
#include "sim/schedule/flash3/flash3.h"
#include "sim/schedule/flops.h"
#include "sim/schedule/tile_choice.h"
#include "sim/schedule/tiled_schedule.h"
#include "sim/schedule/tiles.h"

namespace iosim::detail {

namespace {

constexpr std::uint32_t kDefaultStages = 2;  // FlashAttention-3's forward: two K/V stages

/// Consumer warpgroups for B_r rows by default: B_r / 64, or the largest of 3, 2, 1 dividing it.
std::uint32_t default_consumers(std::uint64_t br) {
  const std::uint64_t tiles = std::max<std::uint64_t>(1, br / kFa3GroupRows);
  for (std::uint32_t c : {3u, 2u}) {
    if (tiles % c == 0) return c;
  }
  return 1;
}

class Flash3Forward final : public TiledSchedule {
 public:
  explicit Flash3Forward(const ScheduleContext& ctx)
      : TiledSchedule("flash3", Pass::fwd, BoundKind::io_aware, 0,
                      ctx.kernel.stages != 0 ? ctx.kernel.stages : kDefaultStages),
        p_(ctx.problem),
        rs_(fa3_pv_from_registers(p_)),
        family_(family_of(rs_ ? "flash3_fwd" : "flash3_fwd_ss")) {
    require_hopper(ctx.hardware, p_);
    choose(ctx, {fa3_forward_tiles(p_), tile_source::kFa3}, Shrink::cols_first);
    groups_ = fa3_groups(family_, ctx.kernel.warps, default_consumers(tiles_.br));
    warps_ = groups_.threads() / 32;
    if (tiles_.br % (kFa3GroupRows * groups_.consumers) != 0 || tiles_.bc % 16 != 0) {
      throw InputError("flash3: warpgroups: tile B_r=" + std::to_string(tiles_.br) + " B_c=" + std::to_string(tiles_.bc) +
                       ": B_r must be a multiple of 64 rows per consumer warpgroup (" +
                       std::to_string(groups_.consumers) + " × 64) and B_c of 16 (wgmma m64nNk16)");
    }
    require_registers(groups_, fragments(), tiles_, rs_ ? "S, O and P" : "S and O");
    check_page_tile(p_, tiles_.bc, name());
    const Tiling rows{p_.n, tiles_.br};
    kernels_.push_back(std::make_unique<GridKernel>(
        rs_ ? "flash3_fwd" : "flash3_fwd_ss", rows, p_.batch_heads(), !Mask(p_).masks(), launch(),
        [this](const Span& i, const Emitter& e) { block(i, e); }));
  }

  std::string variant() const override { return rs_ ? "" : "P through shared memory"; }

 private:
  /// One thread block: Q tile i against every K/V tile its rows see, flash2's step. wgmma reads its
  /// shared-memory operands once per consumer warpgroup: Q_i's rows (each group its own) and K_j (every
  /// group all of it); then V_j per group, and P where it is staged in shared memory. Paged K/V: the
  /// producer reads the table entries of K/V tile j's pages before issuing its copies, as flash2's
  /// forward reads them.
  void block(const Span& i, const Emitter& e) const {
    flash2_forward_block(e, p_, i, tiles_.bc, [&](const Span& j, bool masked, const Emitter& ej) {
      load_block_table(ej, p_, j);
      flash2_forward_step(ej, i.size, j, masked, p_.d, p_.dtype, groups_.consumers, !rs_);
    });
  }

  /// A consumer thread's fragments: S (fp32), O (fp32), P (two 16-bit values a register) where it stays
  /// in registers, and its rows' m and l. Each of the group's 128 threads holds 1/128 of its rows'.
  double fragments() const {
    const auto rows = static_cast<double>(tiles_.br / groups_.consumers);
    const auto c = static_cast<double>(tiles_.bc), d = static_cast<double>(p_.d);
    const double values = rows * c + rows * d + (rs_ ? rows * c / 2 : 0) + 2 * rows;
    return values / kFa3GroupThreads;
  }

  /// Its producer copies a K/V tile by TMA whole, or (paged K/V of pages smaller than the tile) in
  /// boxes of kFa3PagedBoxRows rows, each within one page.
  LaunchShape launch() const {
    const bool boxes = p_.paged() && p_.page_size < tiles_.bc;
    return groups_.launch(plan(tiles_).peak(), stages_, boxes ? kFa3PagedBoxRows : tiles_.bc);
  }

  SramPlan plan(TileShape t) const override {
    const std::uint64_t r = std::min(t.br, p_.n);
    const std::uint64_t c = std::min(t.bc, p_.n_kv);
    const DType e = p_.dtype;
    SramPhase loop = flash2_forward_loop(p_, t, stages_);
    if (!rs_) loop.tiles.push_back({"P_ij", r, c, e, Storage::shared, 1});
    // The epilogue stages O_i in shared memory for its TMA store, over V's stages.
    SramPhase epilogue{"epilogue",
                       {{"Q_i", r, p_.d, e, Storage::shared, 1},
                        {"K_j", c, p_.d, e, Storage::shared, stages_},
                        {"O_i", r, p_.d, e, Storage::shared, 1}}};
    return SramPlan{{loop, epilogue}};
  }

  Problem p_;
  bool rs_;
  const KernelFamily& family_;
  Fa3Groups groups_;
};

}  // namespace

std::unique_ptr<Schedule> make_flash3_fwd(const ScheduleContext& ctx) { return std::make_unique<Flash3Forward>(ctx); }

}  // namespace iosim::detail
