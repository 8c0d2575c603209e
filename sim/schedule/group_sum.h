// Grouped-query attention's backward as iosim's CUDA kernels run it (cuda/kernels/flash_aux.cu,
// group_sum_kernel) and as FlashAttention-2 does (dk_expanded, dv_expanded, then a sum): the main
// kernel's blocks, one set per query head, write their dK_j, dV_j into per-query-head scratch tensors
// dKexp, dVexp (heads × n_kv × d each); then one more kernel sums each group of g query heads:
//   <prefix>_group_sum, per K/V head and block of rows:   for each of the group's g query heads, load
//                                                         its rows of dKexp and dVexp; store their sums
//                                                         to dK and dV (kv_heads × n_kv × d each)
// It reads 2·heads·n_kv·d elements and writes 2·kv_heads·n_kv·d. With g = 1 (multi-head attention) the
// main kernel writes dK, dV itself and there is no such kernel. Used by flash1's, flash2's and flash3's
// backward (flash1_bwd.cpp, flash2_bwd_kernels.h). Its grid is one block per block of rows; the CUDA
// kernel caps its grid at 4096 blocks and loops over the rest (flash_aux.cu), as flash2's preprocess and
// convert kernels do, which the model's elementwise kernels share as a simplification: the counts are the
// same, the waves and the tail of a grid beyond 4096 blocks are not.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "sim/core/emitter.h"
#include "sim/core/problem.h"
#include "sim/schedule/flops.h"
#include "sim/schedule/kernel.h"
#include "sim/schedule/tiles.h"

namespace iosim {

/// The tensor a block of one query head writes gradient `t` (dK or dV) into: its per-query-head
/// scratch (dKexp, dVexp) when K/V heads are shared, else `t` itself.
[[nodiscard]] inline Tensor per_query_head_grad(const Problem& p, Tensor t) {
  if (p.group() == 1) return t;
  return t == Tensor::dK ? Tensor::dKexp : Tensor::dVexp;
}

/// group_sum_kernel's block: 256 threads, each summing one 16-byte chunk of dK or dV over the group.
inline constexpr std::uint32_t kGroupSumThreads = 256;
inline constexpr std::uint64_t kGroupSumChunkBytes = 16;

/// Rows of dK (and as many of dV) one block of the group sum writes: a CUDA block's 256 chunks of
/// output (4 KiB), half of them dK's and half dV's here (the kernel's grid covers dK, then dV).
[[nodiscard]] inline std::uint64_t group_sum_rows(const Problem& p) {
  const std::uint64_t row_bytes = p.d * size_bytes(p.dtype);
  return std::max<std::uint64_t>(1, kGroupSumThreads * kGroupSumChunkBytes / (2 * row_bytes));
}

/// The group sum, named `<prefix>_group_sum`: grid (rows of n_kv, batch × kv_heads); nullptr when
/// g = 1. The group's query heads are adjacent in dKexp, dVexp: a K/V head reads them as g·n_kv
/// packed rows (HeadMap::packed_query) and writes dK, dV per K/V head (HeadMap::kv).
[[nodiscard]] inline std::unique_ptr<GridKernel> group_sum_kernel(const std::string& prefix, const Problem& p) {
  const std::uint64_t g = p.group();
  if (g == 1) return nullptr;
  const std::uint64_t d = p.d, n_kv = p.n_kv;
  // Eight fp32 sums a thread (one 16-byte chunk of fp16 or bf16), no shared memory.
  const LaunchShape shape{kGroupSumThreads, accumulator_registers(8 * kGroupSumThreads, kGroupSumThreads), Bytes(0)};
  const auto body = [g, d, n_kv](const Span& j, const Emitter& e) {
    for (const Tensor t : {Tensor::dKexp, Tensor::dVexp}) {
      for (std::uint64_t h = 0; h < g; ++h) e.load(TileRef{t, h * n_kv + j.begin, j.size, 0, d});
    }
    e.vector(flops::kGroupSumPerInput * 2 * g * j.size * d);
    e.store(rows_of(Tensor::dK, j, d));
    e.store(rows_of(Tensor::dV, j, d));
    e.step();
  };
  const auto map = [](Tensor t) {
    return (t == Tensor::dKexp || t == Tensor::dVexp) ? HeadMap::packed_query : HeadMap::kv;
  };
  return std::make_unique<GridKernel>(prefix + "_group_sum", Tiling{n_kv, group_sum_rows(p)},
                                      p.batch * p.kv_head_count(), true, shape, body, map);
}

}  // namespace iosim
