// flash2 — FlashAttention-2 (Dao 2023, arXiv 2307.08691), forward.
//
// One thread block per Q tile and head; K and V stream through it:
//   for each Q tile i (B_r rows), one thread block:   load Q_i
//     for each K/V tile j (B_c rows):                 load K_j, V_j
//       S_ij = Q_i K_jᵀ; online softmax (m, l on chip); O_i ← α·O_i + P_ij V_j
//     O_i ← O_i / l;                                   store O_i, L_i = m + log l
// HBM traffic per head: reads N·d + 2·T_r·N_kv·d, writes N·d (+ N fp32 for L).
// Default tiles: those of FlashAttention-2's CUDA code for the head dimension
// (csrc/flash_attn/src/flash_fwd_launch_template.h, no dropout).
// Run: iosim --config h100.yaml --n 8192 --d 64 --schedule flash2
#include <algorithm>

#include "sim/core/error.h"
#include "sim/schedule/factories.h"
#include "sim/schedule/flops.h"
#include "sim/schedule/tile_choice.h"
#include "sim/schedule/tiles.h"

namespace iosim::detail {

namespace {

/// Kernel_traits<Headdim, kBlockM, kBlockN, …> chosen by run_mha_fwd_hdim{32..256} for sm80/sm90.
TileShape fa2_forward_tiles(const Problem& p, const HardwareSpec& hw, bool user_tiles) {
  const std::uint64_t d = p.d;
  if (d <= 64) return {128, 128};
  if (d <= 192) return {128, 64};
  if (d <= 256) {
    // hdim256: 128 × 64 where a block may take 2·d·(128 + 2·64) bytes and an SM has less than
    // 4·d·(64 + 2·64); otherwise 64 × 64.
    const std::uint64_t per_block = 2 * 256 * (128 + 2 * 64);
    const std::uint64_t per_sm = 4 * 256 * (64 + 2 * 64);
    const bool big = hw.sm.sram_per_block.value >= per_block && hw.sm.sram_per_sm.value < per_sm;
    return big ? TileShape{128, 64} : TileShape{64, 64};
  }
  if (user_tiles) return {64, 64};
  throw InputError("flash2: FlashAttention-2 has no tile for d = " + std::to_string(d) +
                   " > 256; give --br and --bc");
}

class Flash2Forward final : public Schedule {
 public:
  explicit Flash2Forward(const ScheduleContext& ctx) : p_(ctx.problem) {
    const bool user = ctx.tiles.br.has_value() || ctx.tiles.bc.has_value();
    tiles_ = choose_tiles("flash2", ctx, fa2_forward_tiles(p_, ctx.hardware, user), Shrink::cols_first,
                          [this](TileShape t) { return plan(t); }, notes_);
  }

  std::string_view name() const override { return "flash2"; }
  Pass pass() const override { return Pass::fwd; }
  TileShape tiles() const override { return tiles_; }
  SramPlan sram() const override { return plan(tiles_); }
  BoundKind bound() const override { return BoundKind::io_aware; }
  std::vector<std::string> notes() const override { return notes_; }

  void emit(const Emitter& root) const override {
    const Emitter e = root.repeated(p_.batch_heads());
    const std::uint64_t d = p_.d;
    const Tiling rows{p_.n, tiles_.br};
    const Tiling cols{p_.n_kv, tiles_.bc};
    e.loop(rows, [&](const Span& i, const Emitter& ei) {  // one thread block
      ei.load(rows_of(Tensor::Q, i, d));
      ei.loop(cols, [&](const Span& j, const Emitter& ej) {
        ej.load(rows_of(Tensor::K, j, d));
        ej.load(rows_of(Tensor::V, j, d));
        ej.matmul(i.size, j.size, d);                                // S_ij = Q_i K_jᵀ
        ej.vector(flops::kSoftmaxPerScore * i.size * j.size);        // scale, max, exp, sum
        ej.vector(flops::kFlash2PerRowStep * i.size);                // m, α, l
        ej.vector(flops::kFlash2PerOutputStep * i.size * d);         // O_i ← α·O_i
        ej.matmul(i.size, d, j.size);                                // O_i += P_ij V_j
        ej.step();
      });
      ei.vector(flops::kFlash2PerOutputFinal * i.size * d + flops::kFlash2PerRowFinal * i.size);
      ei.store(rows_of(Tensor::O, i, d));
      ei.store(stat_of(Tensor::L, i));
    });
  }

 private:
  SramPlan plan(TileShape t) const {
    const std::uint64_t r = std::min(t.br, p_.n);
    const std::uint64_t c = std::min(t.bc, p_.n_kv);
    const DType e = p_.dtype;
    return SramPlan{{SramPhase{"K/V loop",
                               {{"Q_i", r, p_.d, e, Storage::shared, 1},
                                {"K_j", c, p_.d, e, Storage::shared, 1},
                                {"V_j", c, p_.d, e, Storage::shared, 1},
                                {"S_ij", r, c, DType::fp32, Storage::registers, 1},
                                {"O_i", r, p_.d, DType::fp32, Storage::registers, 1},
                                {"m l", r, 2, DType::fp32, Storage::registers, 1}}}}};
  }

  Problem p_;
  TileShape tiles_;
  std::vector<std::string> notes_;
};

}  // namespace

std::unique_ptr<Schedule> make_flash2(Pass pass, const ScheduleContext& ctx) {
  if (pass != Pass::fwd) throw InputError("flash2: the backward pass is not modelled yet");
  return std::make_unique<Flash2Forward>(ctx);
}

}  // namespace iosim::detail
