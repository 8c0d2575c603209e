// The project's Triton backward (python/iosim/triton/kernels.py) as three kernels, in launch order:
//   flash2_bwd_preprocess, per Q tile i, query head: load O_i, dO_i; store D_i = rowsum(dO_i ∘ O_i)
//   flash2_bwd_dkdv, per K/V tile j and K/V head:   load K_j, V_j; for each query head of the group, for
//                    each Q tile that sees j (the diagonal's masked tiles first, then the unmasked ones):
//                    load Qᵀ_i, L_i; Pᵀ = exp2(K_j Q_iᵀ − L_i); load dO_i; dV_j += Pᵀ dO_i;
//                    load D_i; dSᵀ = Pᵀ ∘ (V_j dO_iᵀ − D_i); dK_j += dSᵀ Q_i;   store dK_j ← τ·dK_j, dV_j
//   flash2_bwd_dq,   per Q tile i and query head:   load Q_i, dO_i, L_i, D_i; for each K/V tile that i
//                    sees (unmasked first, then the diagonal's masked ones): load Kᵀ_j; P = exp2(Q_i Kᵀ_j − L_i);
//                    load V_j; dS = P ∘ (dO_i V_jᵀ − D_i); dQ_i += dS K_j;      store dQ_i ← τ·dQ_i
// Unlike FlashAttention-2's CUDA backward (flash2_bwd_kernels.h) there is no dQacc and no atomic: dQ has a
// kernel of its own, which reads K and V again. Grouped K/V heads: the dK/dV kernel's block is a K/V
// head's, looping over its group's query heads (adjacent in memory: HeadMap::packed_query), so dK and dV
// are stored once per K/V head and no group sum follows.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/emitter.h"
#include "sim/core/mask.h"
#include "sim/core/problem.h"
#include "sim/schedule/flops.h"
#include "sim/schedule/kernel.h"
#include "sim/schedule/schedule.h"
#include "sim/schedule/tiles.h"

namespace iosim {

/// The kernels' names, as the registry's Triton families and the compiled records know them.
inline constexpr const char* kTritonBwdPreprocess = "flash2_bwd_preprocess";
inline constexpr const char* kTritonBwdDkdv = "flash2_bwd_dkdv";
inline constexpr const char* kTritonBwdDq = "flash2_bwd_dq";

/// Vector work of one backward step over `scores` scores: recompute P, form dS, and the mask where the
/// diagonal crosses the tiles.
[[nodiscard]] inline std::uint64_t triton_bwd_step_vector(std::uint64_t scores, bool masked) {
  return (flops::kFlash2RecomputePerScore + flops::kDsPerScore + (masked ? flops::kMaskPerScore : 0)) * scores;
}

/// Whether a profiled step of either loop kernel (its first product m × n scores) was a masked one: its
/// vector work holds the mask's kMaskPerScore a score beyond an unmasked step's.
[[nodiscard]] inline bool triton_bwd_step_masked(std::uint64_t m, std::uint64_t n, double vector_flops) {
  const auto scores = static_cast<double>(m * n);
  return vector_flops >= static_cast<double>(triton_bwd_step_vector(m * n, false)) +
                             0.5 * static_cast<double>(flops::kMaskPerScore) * scores;
}

/// Launches of the three kernels, in launch order.
struct TritonBwdLaunches {
  LaunchShape preprocess, dkdv, dq;
};

/// The three kernels at tile t (B_r = BLOCK_M, B_c = BLOCK_N). They copy what they read.
[[nodiscard]] inline std::vector<std::unique_ptr<GridKernel>> triton_backward_kernels(const Problem& p, TileShape t,
                                                                                       const TritonBwdLaunches& l) {
  const std::uint64_t d = p.d, n = p.n, g = p.group();
  const std::uint64_t elem = size_bytes(p.dtype);
  const Tiling rows{p.n, t.br};
  const Tiling cols{p.n_kv, t.bc};
  const auto preprocess = [d](const Span& i, const Emitter& e) {
    e.load(rows_of(Tensor::O, i, d));
    e.load(rows_of(Tensor::dO, i, d));
    e.vector(flops::kRowDotPerElement * i.size * d);
    e.store(stat_of(Tensor::D, i));
    e.step();
  };
  // One K/V tile j (c rows) against Q tile i (r rows) of query head h of the group (rows h·n + i).
  const auto dkdv_step = [d, n, elem](const Span& i, const Span& j, std::uint64_t h, bool masked, const Emitter& e) {
    const std::uint64_t r = i.size, c = j.size;
    const Span q{i.first, i.count, r, h * n + i.begin};
    e.load(rows_of(Tensor::Q, q, d));
    e.load(stat_of(Tensor::L, q));
    e.matmul(c, r, d, Bytes((c * d + r * d) * elem));  // Sᵀ = K_j Q_iᵀ
    e.special(flops::kExpPerScore * r * c);
    e.load(rows_of(Tensor::dO, q, d));
    e.matmul(c, d, r, Bytes((r * c + r * d) * elem));  // dV_j += Pᵀ dO_i
    e.load(stat_of(Tensor::D, q));
    e.matmul(c, r, d, Bytes((c * d + r * d) * elem));  // dPᵀ = V_j dO_iᵀ
    e.vector(triton_bwd_step_vector(r * c, masked));
    e.matmul(c, d, r, Bytes((r * c + r * d) * elem));  // dK_j += dSᵀ Q_i
    e.step();
  };
  const auto dkdv = [p, d, g, rows, dkdv_step](const Span& j, const Emitter& e) {
    const QRange q = Mask(p).q_for_cols(j.begin, j.begin + j.size, rows);
    e.load(rows_of(Tensor::K, j, d));
    e.load(rows_of(Tensor::V, j, d));
    for (std::uint64_t h = 0; h < g; ++h) {
      const auto at = [&](bool masked) {
        return [&, masked](const Span& i, const Emitter& ei) { dkdv_step(i, j, h, masked, ei); };
      };
      e.loop(rows, q.start, q.full_lo, at(true));
      e.loop(rows, q.full_lo, q.full_hi, at(false));
      e.loop(rows, q.full_hi, q.end, at(true));
    }
    e.vector(flops::kScalePerElement * j.size * d);
    e.store(rows_of(Tensor::dK, j, d));
    e.store(rows_of(Tensor::dV, j, d));
  };
  const auto dq_step = [d, elem](const Span& i, const Span& j, bool masked, const Emitter& e) {
    const std::uint64_t r = i.size, c = j.size;
    e.load(rows_of(Tensor::K, j, d));
    e.matmul(r, c, d, Bytes((r * d + c * d) * elem));  // S = Q_i K_jᵀ
    e.special(flops::kExpPerScore * r * c);
    e.load(rows_of(Tensor::V, j, d));
    e.matmul(r, c, d, Bytes((r * d + c * d) * elem));  // dP = dO_i V_jᵀ
    e.vector(triton_bwd_step_vector(r * c, masked));
    e.matmul(r, d, c, Bytes((r * c + c * d) * elem));  // dQ_i += dS K_j
    e.step();
  };
  const auto dq = [p, d, cols, dq_step](const Span& i, const Emitter& e) {
    const KvRange kv = Mask(p).kv_for_rows(i.begin, i.begin + i.size, cols);
    e.load(rows_of(Tensor::Q, i, d));
    e.load(rows_of(Tensor::dO, i, d));
    e.load(stat_of(Tensor::L, i));
    e.load(stat_of(Tensor::D, i));
    const auto at = [&](bool masked) {
      return [&, masked](const Span& j, const Emitter& ej) { dq_step(i, j, masked, ej); };
    };
    // Triton's order: the tiles wholly seen, then the diagonal's.
    e.loop(cols, kv.full_lo, kv.full_hi, at(false));
    e.loop(cols, kv.start, kv.full_lo, at(true));
    e.loop(cols, kv.full_hi, kv.end, at(true));
    e.vector(flops::kScalePerElement * i.size * d);
    e.store(rows_of(Tensor::dQ, i, d));
  };
  const bool uniform = !Mask(p).masks();
  const auto kv_heads = [](Tensor x) {
    return (x == Tensor::K || x == Tensor::V || x == Tensor::dK || x == Tensor::dV) ? HeadMap::kv
                                                                                      : HeadMap::packed_query;
  };
  std::vector<std::unique_ptr<GridKernel>> out;
  out.push_back(std::make_unique<GridKernel>(kTritonBwdPreprocess, rows, p.batch_heads(), true, l.preprocess, preprocess));
  out.push_back(std::make_unique<GridKernel>(kTritonBwdDkdv, cols, p.batch * p.kv_head_count(), uniform, l.dkdv, dkdv,
                                             kv_heads));
  out.push_back(std::make_unique<GridKernel>(kTritonBwdDq, rows, p.batch_heads(), uniform, l.dq, dq));
  return out;
}

}  // namespace iosim
