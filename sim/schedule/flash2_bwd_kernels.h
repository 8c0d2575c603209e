// FlashAttention-2's backward as three kernels, which flash2's backward and flash3's (the same dataflow)
// share; they differ in the main kernel's step (the order of its products, its operands' readers) and
// launch:
//   <name>_preprocess, per Q tile:   load O_i, dO_i; store D_i = rowsum(dO_i ∘ O_i); store dQacc_i = 0
//   <name>, per K/V tile j:          load K_j, V_j; `step` for each Q tile that sees it (masked where
//                                    the diagonal crosses it); store dK_j ← τ·dK_j, dV_j
//   <name>_convert, per Q tile:      load dQacc_i; store dQ_i = τ·dQacc_i
// With grouped K/V heads (group g > 1) <name> stores dK_j, dV_j per query head, into dKexp and dVexp,
// and a fourth kernel, <name>_group_sum (group_sum.h), sums each group's into dK and dV.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/emitter.h"
#include "sim/core/mask.h"
#include "sim/core/problem.h"
#include "sim/schedule/flops.h"
#include "sim/schedule/group_sum.h"
#include "sim/schedule/kernel.h"
#include "sim/schedule/schedule.h"
#include "sim/schedule/tiles.h"

namespace iosim {

/// The main kernel's work for Q tile i against K/V tile j, ending with the emitter's step().
using BackwardStep = std::function<void(const Span& i, const Span& j, bool masked, const Emitter& e)>;

/// The three kernels at tile t (four with grouped K/V heads), in launch order; `main` is the main
/// kernel's launch; `dkv_requests`, the main kernel's store requests per sector of dK_j and dV_j
/// (Transfer::requests_per_sector). The kernels copy what they read (the problem, the tile, `step`): they outlive this call.
[[nodiscard]] inline std::vector<std::unique_ptr<GridKernel>> flash2_backward_kernels(
    const std::string& name, const Problem& p, TileShape t, const LaunchShape& main, BackwardStep step,
    std::uint32_t dkv_requests = 1) {
  const std::uint64_t d = p.d;
  const Tiling rows{p.n, t.br};
  const Tiling cols{p.n_kv, t.bc};
  const std::uint64_t bh = p.batch_heads();
  const LaunchShape small{128, accumulator_registers(t.br * d, 128), Bytes(0)};
  const Tensor dk = per_query_head_grad(p, Tensor::dK), dv = per_query_head_grad(p, Tensor::dV);
  const auto preprocess = [d](const Span& i, const Emitter& e) {
    e.load(rows_of(Tensor::O, i, d));
    e.load(rows_of(Tensor::dO, i, d));
    e.vector(flops::kRowDotPerElement * i.size * d);
    e.store(stat_of(Tensor::D, i));
    e.store(rows_of(Tensor::dQacc, i, d));
    e.step();
  };
  // One thread block: K/V tile j against every Q tile that sees it.
  const auto kv_block = [p, d, rows, step, dk, dv, dkv_requests](const Span& j, const Emitter& e) {
    const QRange q = Mask(p).q_for_cols(j.begin, j.begin + j.size, rows);
    if (!q.empty()) {
      e.load(rows_of(Tensor::K, j, d));
      e.load(rows_of(Tensor::V, j, d));
    }
    e.loop(rows, q.start, q.full_lo, [&](const Span& i, const Emitter& ei) { step(i, j, true, ei); });
    e.loop(rows, q.full_lo, q.full_hi, [&](const Span& i, const Emitter& ei) { step(i, j, false, ei); });
    e.loop(rows, q.full_hi, q.end, [&](const Span& i, const Emitter& ei) { step(i, j, true, ei); });
    e.vector(flops::kScalePerElement * j.size * d);
    e.store(rows_of(dk, j, d), dkv_requests);
    e.store(rows_of(dv, j, d), dkv_requests);
  };
  const auto convert = [d](const Span& i, const Emitter& e) {
    e.load(rows_of(Tensor::dQacc, i, d));
    e.vector(flops::kScalePerElement * i.size * d);
    e.store(rows_of(Tensor::dQ, i, d));
    e.step();
  };
  std::vector<std::unique_ptr<GridKernel>> out;
  out.push_back(std::make_unique<GridKernel>(name + "_preprocess", rows, bh, true, small, preprocess));
  out.push_back(std::make_unique<GridKernel>(name, cols, bh, !Mask(p).masks(), main, kv_block));
  out.push_back(std::make_unique<GridKernel>(name + "_convert", rows, bh, true, small, convert));
  if (auto sum = group_sum_kernel(name, p)) out.push_back(std::move(sum));
  return out;
}

}  // namespace iosim
