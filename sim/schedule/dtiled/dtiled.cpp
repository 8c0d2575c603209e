// dtiled — tiled attention that also cuts the head dimension, for an SRAM smaller than d².
//
// Saha & Ye 2024 ("The I/O Complexity of Attention, or How Optimal is FlashAttention?", ICML) show the
// I/O complexity is Θ(N²·d²/M) for M ≥ d² — FlashAttention is optimal there — but Θ(N²·d/√M) for
// M < d², where a B_r × d tile of Q no longer fits and FlashAttention's B_r = M/4d shrinks towards 1.
// This schedule reaches Θ(N²·d/√M): it keeps only B_r × B_c scores on chip and streams d in chunks of
// B_c columns, for both products:
//   for each Q tile i, one thread block:
//     for each K/V tile j:
//       for each chunk k of d:   load Q_i[:,k], K_j[:,k];  S_ij += Q_i[:,k] K_j[:,k]ᵀ
//       online softmax on S_ij (m, l on chip)
//       for each chunk k of d:   load O_i[:,k] (not for the first j), V_j[:,k]
//                                O_i[:,k] ← α·O_i[:,k] + P_ij V_j[:,k] (÷ l for the last j); store O_i[:,k]
//     store L_i
// HBM traffic per head: Q: T_c·N·d; K, V: T_r·N_kv·d each; O: (T_c − 1)·N·d read, T_c·N·d written.
// With B_r = B_c = B = ⌊√(M/5)⌋ (S_ij, and the Q, K, V, O chunks, each B × B) that is ≈ 5·N·N_kv·d/B.
// Run: iosim --config teaching.yaml --n 4096 --d 128 --schedule flash2,dtiled
#include <algorithm>
#include <cmath>

#include "sim/core/mask.h"
#include "sim/schedule/flops.h"
#include "sim/schedule/tile_choice.h"
#include "sim/schedule/tiled_schedule.h"
#include "sim/schedule/tiles.h"

namespace iosim::detail {

namespace {

/// Bytes of the plan below for a square tile B with d-chunks of min(d, B).
std::uint64_t footprint(const Problem& p, std::uint64_t b) {
  const std::uint64_t chunk = std::min(p.d, b);
  return (b * b + 4 * b * chunk) * size_bytes(p.dtype) + 2 * b * size_bytes(DType::fp32);
}

/// The largest square B whose S tile, four B × min(d, B) chunks and row statistics fit: about
/// ⌊√(M/5)⌋.
TileShape dtiled_default(const Problem& p, const HardwareSpec& hw) {
  const auto m = static_cast<double>(sram_elements(hw, p.dtype));
  auto b = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::floor(std::sqrt(m / 5.0))));
  while (b > 1 && footprint(p, b) > hw.sm.sram_per_block.value) --b;
  return {b, b};
}

class DTiled final : public TiledSchedule {
 public:
  explicit DTiled(const ScheduleContext& ctx)
      : TiledSchedule("dtiled", Pass::fwd, BoundKind::small_sram, ctx.kernel.warps != 0 ? ctx.kernel.warps : 4u, 1),
        p_(ctx.problem) {
    choose(ctx, {dtiled_default(p_, ctx.hardware), tile_source::kDtiled}, Shrink::rows_first);
    const std::uint32_t threads = 32 * warps_;
    const LaunchShape shape{threads, accumulator_registers(tiles_.br * tiles_.bc, threads), plan(tiles_).peak()};
    kernels_.push_back(std::make_unique<GridKernel>("dtiled_fwd", Tiling{p_.n, tiles_.br}, p_.batch_heads(),
                                                    !Mask(p_).masks(), shape,
                                                    [this](const Span& i, const Emitter& e) { block(i, e); }));
  }

 private:
  /// One thread block per Q tile.
  void block(const Span& i, const Emitter& ei) const {
    const Tiling cols{p_.n_kv, tiles_.bc};
    const Tiling chunks{p_.d, chunk()};
    const Mask mask(p_);
    {
      const KvRange kv = mask.kv_for_rows(i.begin, i.begin + i.size, cols);
      // The first K/V tile seen loads no O, the last normalises it; tiles outside [kv.full_lo,
      // kv.full_hi) are masked. The middle tiles run in three runs split where masking changes.
      const auto run = [&](std::uint64_t lo, std::uint64_t hi, bool first, bool last) {
        ei.loop(cols, lo, hi, [&](const Span& j, const Emitter& ej) {
          step(i, j, chunks, first, last, j.first < kv.full_lo || j.first >= kv.full_hi, ej);
        });
      };
      if (kv.empty()) {  // rows that see no key (causal, n > n_kv): O = 0
        ei.loop(chunks, [&](const Span& k, const Emitter& ek) { ek.store(TileRef{Tensor::O, i.begin, i.size, k.begin, k.size}); });
      } else {
        run(kv.start, kv.start + 1, true, kv.end == kv.start + 1);
        if (kv.end >= kv.start + 2) {
          const std::uint64_t lo = kv.start + 1, hi = kv.end - 1;
          run(lo, std::clamp(kv.full_lo, lo, hi), false, false);
          run(std::clamp(kv.full_lo, lo, hi), std::clamp(kv.full_hi, lo, hi), false, false);
          run(std::clamp(kv.full_hi, lo, hi), hi, false, false);
          run(hi, kv.end, false, true);
        }
      }
      ei.store(stat_of(Tensor::L, i));
    }
  }

  std::uint64_t chunk() const { return std::min(p_.d, tiles_.bc); }

  void step(const Span& i, const Span& j, const Tiling& chunks, bool first, bool last, bool masked,
            const Emitter& e) const {
    e.loop(chunks, [&](const Span& k, const Emitter& ek) {
      ek.load(TileRef{Tensor::Q, i.begin, i.size, k.begin, k.size});
      ek.load(TileRef{Tensor::K, j.begin, j.size, k.begin, k.size});
      ek.matmul(i.size, j.size, k.size);
    });
    if (masked) e.vector(flops::kMaskPerScore * i.size * j.size);
    e.vector(flops::kSoftmaxPerScore * i.size * j.size);
    e.special(flops::kExpPerScore * i.size * j.size);
    e.vector(flops::kFlash2PerRowStep * i.size);
    e.special(flops::kFlash2ExpPerRowStep * i.size);
    e.loop(chunks, [&](const Span& k, const Emitter& ek) {
      const TileRef o{Tensor::O, i.begin, i.size, k.begin, k.size};
      if (!first) ek.load(o);
      ek.load(TileRef{Tensor::V, j.begin, j.size, k.begin, k.size});
      ek.vector(flops::kFlash2PerOutputStep * i.size * k.size);
      ek.matmul(i.size, k.size, j.size);
      if (last) ek.vector(flops::kFlash2PerOutputFinal * i.size * k.size);
      ek.store(o);
    });
    if (last) {
      e.vector(flops::kFlash2PerRowFinal * i.size);
      e.special(flops::kFlash2LogPerRowFinal * i.size);
    }
    e.step();
  }

  SramPlan plan(TileShape t) const override {
    const std::uint64_t r = std::min(t.br, p_.n);
    const std::uint64_t c = std::min(t.bc, p_.n_kv);
    const std::uint64_t b = std::min(p_.d, t.bc);
    const DType e = p_.dtype;
    return SramPlan{{SramPhase{"K/V loop",
                               {{"S_ij", r, c, e, Storage::shared, 1},
                                {"Q_i[:,k]", r, b, e, Storage::shared, 1},
                                {"K_j[:,k]", c, b, e, Storage::shared, 1},
                                {"V_j[:,k]", c, b, e, Storage::shared, 1},
                                {"O_i[:,k]", r, b, e, Storage::shared, 1},
                                {"m l", r, 2, DType::fp32, Storage::shared, 1}}}}};
  }

  Problem p_;
};

}  // namespace

std::unique_ptr<Schedule> make_dtiled_fwd(const ScheduleContext& ctx) { return std::make_unique<DTiled>(ctx); }

}  // namespace iosim::detail
