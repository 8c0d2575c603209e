// FlashAttention-2's forward, the parts its schedules share: one step (one Q tile against one K/V tile),
// which flash2's forward, flash3's forward and the split-KV kernel of flashdecode (and flashdecode-heads)
// each do; a whole Q tile's block over the K/V tiles its rows see (flash2, flash3); and the K/V loop's
// SRAM (flash2, flash3).
#pragma once

#include <algorithm>
#include <cstdint>

#include "sim/core/dtype.h"
#include "sim/core/emitter.h"
#include "sim/core/mask.h"
#include "sim/core/paging.h"
#include "sim/core/problem.h"
#include "sim/core/sram.h"
#include "sim/schedule/flops.h"
#include "sim/schedule/schedule.h"
#include "sim/schedule/tiles.h"

namespace iosim {

/// Paged K/V: the block table's entries of the pages K/V tile j covers, read from HBM before the tile's
/// loads (one read a tile, as the paged kernels read it); nothing when K and V are contiguous.
inline void load_block_table(const Emitter& e, const Problem& p, const Span& j) {
  if (!p.paged()) return;
  const PageRun run = pages_of(p, j);
  e.load(TileRef{Tensor::BT, run.first, run.count, 0, 1});
}

/// K_j and V_j loaded; S = Q_i K_jᵀ (reading the block's `rows` rows of Q once and K_j once per reader),
/// masked where the diagonal crosses it, the online softmax (m, α, l), O_i ← α·O_i + P_ij V_j (V_j read
/// once per reader, and P_ij once more where `p_through_shared`); then the step ends. `readers`: who
/// multiplies against the whole of K_j and V_j, each warp (flash2's mma.sync) or each consumer
/// warpgroup (flash3's wgmma).
inline void flash2_forward_step(const Emitter& e, std::uint64_t rows, const Span& j, bool masked, std::uint64_t d,
                                DType dtype, std::uint32_t readers, bool p_through_shared = false) {
  const std::uint64_t elem = size_bytes(dtype);
  e.load(rows_of(Tensor::K, j, d));
  e.load(rows_of(Tensor::V, j, d));
  e.matmul(rows, j.size, d, Bytes((rows + readers * j.size) * d * elem));
  if (masked) e.vector(flops::kMaskPerScore * rows * j.size);
  e.vector(flops::kSoftmaxPerScore * rows * j.size);  // scale, max, sum
  e.special(flops::kExpPerScore * rows * j.size);     // exp
  e.vector(flops::kFlash2PerRowStep * rows);          // m, α, l
  e.special(flops::kFlash2ExpPerRowStep * rows);
  e.vector(flops::kFlash2PerOutputStep * rows * d);   // O_i ← α·O_i
  const std::uint64_t p_staged = p_through_shared ? rows * j.size : 0;
  e.matmul(rows, d, j.size, Bytes((readers * j.size * d + p_staged) * elem));  // O_i += P_ij V_j
  e.step();
}

/// Whether a profiled step of flash2_forward_step (`rows` × `cols` scores, head dimension d) was a
/// masked one: its vector work holds the mask's kMaskPerScore a score beyond an unmasked step's.
[[nodiscard]] inline bool flash2_forward_step_masked(std::uint64_t rows, std::uint64_t cols, std::uint64_t d,
                                                     double vector_flops) {
  const auto unmasked = static_cast<double>(flops::kSoftmaxPerScore * rows * cols + flops::kFlash2PerRowStep * rows +
                                            flops::kFlash2PerOutputStep * rows * d);
  return vector_flops >= unmasked + 0.5 * static_cast<double>(flops::kMaskPerScore * rows * cols);
}

/// One thread block of a Q-outer forward: Q_i loaded once; `step(j, masked, emitter)` for each K/V tile
/// of width `bc` its rows see (under a mask: from the window's edge to the diagonal, the tiles either
/// crosses masked); O_i ← O_i / l,
/// L_i = m + log l stored.
template <class Step>
void flash2_forward_block(const Emitter& e, const Problem& p, const Span& i, std::uint64_t bc, const Step& step) {
  const std::uint64_t d = p.d;
  const Tiling cols{p.n_kv, bc};
  e.load(rows_of(Tensor::Q, i, d));
  const KvRange kv = Mask(p).kv_for_rows(i.begin, i.begin + i.size, cols);
  e.loop(cols, kv.start, kv.full_lo, [&](const Span& j, const Emitter& ej) { step(j, true, ej); });
  e.loop(cols, kv.full_lo, kv.full_hi, [&](const Span& j, const Emitter& ej) { step(j, false, ej); });
  e.loop(cols, kv.full_hi, kv.end, [&](const Span& j, const Emitter& ej) { step(j, true, ej); });
  e.vector(flops::kFlash2PerOutputFinal * i.size * d + flops::kFlash2PerRowFinal * i.size);
  e.special(flops::kFlash2LogPerRowFinal * i.size);
  e.store(rows_of(Tensor::O, i, d));
  e.store(stat_of(Tensor::L, i));
}

/// The K/V loop's tiles of a Q-outer forward at tile t: Q_i and `stages` copies of K_j, V_j in shared
/// memory; S_ij, O_i and m, l in fp32 registers.
[[nodiscard]] inline SramPhase flash2_forward_loop(const Problem& p, TileShape t, std::uint32_t stages) {
  const std::uint64_t r = std::min(t.br, p.n);
  const std::uint64_t c = std::min(t.bc, p.n_kv);
  const DType e = p.dtype;
  return SramPhase{"K/V loop",
                   {{"Q_i", r, p.d, e, Storage::shared, 1},
                    {"K_j", c, p.d, e, Storage::shared, stages},
                    {"V_j", c, p.d, e, Storage::shared, stages},
                    {"S_ij", r, c, DType::fp32, Storage::registers, 1},
                    {"O_i", r, p.d, DType::fp32, Storage::registers, 1},
                    {"m l", r, 2, DType::fp32, Storage::registers, 1}}};
}

}  // namespace iosim
