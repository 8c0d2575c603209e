// flash1 forward — FlashAttention, Algorithm 1 of Dao et al. 2022 (arXiv 2205.14135), exactly.
//
// Computes O = softmax(Q Kᵀ / √d) V with the running max m and sum l kept in HBM:
//   O = 0, l = 0, m = −∞ written to HBM
//   for each K/V tile j (B_c rows):            load K_j, V_j
//     for each Q tile i (B_r rows):            load Q_i, O_i, l_i, m_i
//       S_ij = Q_i K_jᵀ; online softmax; O_i rescaled and updated
//       store O_i, l_i, m_i
// HBM traffic per head: reads 2·N_kv·d + T_c·(2·N·d + 2·N), writes (T_c + 1)·(N·d + 2·N).
// Causal: the Q tiles that see none of K_j are skipped, and K_j, V_j are not loaded when none does;
// tiles the diagonal crosses are computed whole and masked.
// Kernels: an initialisation, then one thread block per head running the whole algorithm (as
// FlashAttention's first CUDA kernels parallelised over batch × heads only).
// Default tiles: B_c = ⌈M/4d⌉, B_r = min(B_c, d), M the SRAM of one thread block in elements.
// Run: iosim --config a100.yaml --n 8192 --d 64 --schedule flash1
#include <algorithm>

#include "sim/core/mask.h"
#include "sim/schedule/defaults.h"
#include "sim/schedule/flops.h"
#include "sim/schedule/tile_choice.h"
#include "sim/schedule/tiled_schedule.h"
#include "sim/schedule/tiles.h"

namespace iosim::detail {

namespace {

class Flash1Forward final : public TiledSchedule {
 public:
  explicit Flash1Forward(const ScheduleContext& ctx)
      : TiledSchedule("flash1", Pass::fwd, BoundKind::io_aware, ctx.kernel.warps != 0 ? ctx.kernel.warps : 4u, 1),
        p_(ctx.problem) {
    choose(ctx, {paper_tiles(p_, ctx.hardware), tile_source::kPaper}, Shrink::rows_first);
    const std::uint64_t bh = p_.batch_heads();
    const LaunchShape fill{128, kBaseRegisters, Bytes(0)};
    kernels_.push_back(std::make_unique<GridKernel>("flash1_init", Tiling{p_.n, tiles_.br}, bh, true, fill,
                                                    [this](const Span& i, const Emitter& e) { init(i, e); }));
    kernels_.push_back(std::make_unique<GridKernel>("flash1_fwd", Tiling{1, 1}, bh, true, launch(),
                                                    [this](const Span&, const Emitter& e) { main(e); }));
  }

 private:
  /// Line 2: O = (0), l = (0), m = (−∞) initialised in HBM, one block per Q tile.
  void init(const Span& i, const Emitter& e) const {
    e.store(rows_of(Tensor::O, i, p_.d));
    e.store(stat_of(Tensor::l, i));
    e.store(stat_of(Tensor::m, i));
    e.step();
  }

  /// Lines 5–15, one thread block per head, as FlashAttention's first CUDA kernels ran it.
  void main(const Emitter& e) const {
    const std::uint64_t d = p_.d;
    const Tiling rows{p_.n, tiles_.br};
    const Tiling cols{p_.n_kv, tiles_.bc};
    const Mask mask(p_);
    e.loop_if_uniform(!mask.masks(), cols, [&](const Span& j, const Emitter& ej) {
      const QRange q = mask.q_for_cols(j.begin, j.begin + j.size, rows);
      if (q.empty()) return;  // no query sees these keys
      ej.load(rows_of(Tensor::K, j, d));
      ej.load(rows_of(Tensor::V, j, d));
      ej.loop(rows, q.start, q.full_lo, [&](const Span& i, const Emitter& ei) { step(i, j, true, ei); });
      ej.loop(rows, q.full_lo, q.full_hi, [&](const Span& i, const Emitter& ei) { step(i, j, false, ei); });
      ej.loop(rows, q.full_hi, q.end, [&](const Span& i, const Emitter& ei) { step(i, j, true, ei); });
    });
  }

  /// Lines 8–13 of Algorithm 1 for Q tile i and K/V tile j.
  void step(const Span& i, const Span& j, bool masked, const Emitter& e) const {
    const std::uint64_t d = p_.d;
    const std::uint64_t elem = size_bytes(p_.dtype);
    e.load(rows_of(Tensor::Q, i, d));
    e.load(rows_of(Tensor::O, i, d));
    e.load(stat_of(Tensor::l, i));
    e.load(stat_of(Tensor::m, i));
    e.matmul(i.size, j.size, d, Bytes((i.size + warps_ * j.size) * d * elem));  // S_ij = Q_i K_jᵀ
    if (masked) e.vector(flops::kMaskPerScore * i.size * j.size);
    e.vector(flops::kSoftmaxPerScore * i.size * j.size);                        // m̃, P̃, l̃
    e.special(flops::kExpPerScore * i.size * j.size);
    e.vector(flops::kFlash1PerRowStep * i.size);                                // m_new, l_new
    e.special(flops::kFlash1ExpPerRowStep * i.size);
    e.matmul(i.size, d, j.size, Bytes((i.size * j.size + warps_ * j.size * d) * elem));  // P̃_ij V_j
    e.vector(flops::kFlash1PerOutputStep * i.size * d);                         // O_i update
    e.store(rows_of(Tensor::O, i, d));
    e.store(stat_of(Tensor::l, i));
    e.store(stat_of(Tensor::m, i));
    e.step();
  }

  LaunchShape launch() const {
    const std::uint32_t threads = 32 * warps_;
    // S and the P V product accumulate in fp32 registers.
    const double fragments = static_cast<double>(tiles_.br * tiles_.bc + tiles_.br * p_.d) / threads;
    return {threads, accumulator_registers(tiles_.br * p_.d, threads), plan(tiles_).peak(), 1, fragments, tiles_.br,
            tiles_.bc};
  }

  SramPlan plan(TileShape t) const override {
    const std::uint64_t r = std::min(t.br, p_.n);
    const std::uint64_t c = std::min(t.bc, p_.n_kv);
    const DType e = p_.dtype;
    return SramPlan{{SramPhase{"inner step",
                               {{"Q_i", r, p_.d, e, Storage::shared, 1},
                                {"O_i", r, p_.d, e, Storage::shared, 1},
                                {"K_j", c, p_.d, e, Storage::shared, 1},
                                {"V_j", c, p_.d, e, Storage::shared, 1},
                                {"S_ij", r, c, e, Storage::shared, 1},
                                {"l_i m_i m~ l~ m_new l_new", r, 6, DType::fp32, Storage::shared, 1}}}}};
  }

  Problem p_;
};

}  // namespace

std::unique_ptr<Schedule> make_flash1_fwd(const ScheduleContext& ctx) { return std::make_unique<Flash1Forward>(ctx); }

}  // namespace iosim::detail
