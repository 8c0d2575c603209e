// flash1's kernel families (kernel_family.h): FlashAttention's Algorithms 1 and 4. How they were
// fitted: kernel_family.cpp.
#include <vector>

#include "sim/schedule/kernel_family.h"

namespace iosim::detail {

std::vector<KernelFamily> flash1_families() {
  std::vector<KernelFamily> f;
  // FlashAttention's Algorithm 1 (cuda/kernels/flash1_fwd.cuh): one block per head; each warp owns 16
  // rows of every Q tile, loads its Q_i, O_i, l_i, m_i and waits for them (no overlap), no block
  // barrier in the inner loop; Q_i from shared memory, P from registers; row max and row sum every
  // step (O_i, l_i, m_i read and written each step: the overhead's per_row and per_column). O_i is
  // updated in place in shared memory (read, then written and stored): one tile read beyond the products.
  f.push_back({.name = "fa1-fwd",
               .source = "cuda/kernels/flash1_fwd.cuh",
               .matmuls = {kRowsSharedShared, kRowsRegShared},
               .shuffle_rounds_per_step = 4,
               .base_registers = -32.2,
               .per_fragment = 2.186,
               .overlap = Overlap::simulated,
               .overhead = {.per_step = 198, .per_score = 2.72, .per_row = 8.30, .per_column = 0.0353},
               .waits = {.per_instruction = 1.62, .per_mio = 10.4},
               .smem_layout = SharedLayout::swizzled,
               .output_staged = true,
               .shared_tile_reads = 1});
  // FlashAttention's Algorithm 4 (cuda/kernels/flash1_bwd.cuh): the backward step of
  // flash_bwd_common.cuh, as fa2-bwd, with Q_i, O_i, dO_i, dQ_i, l_i, m_i loaded each step (its row
  // reductions' shuffles, which the model does not issue for a backward, are among the overhead).
  // Beyond the products a step reads three B_r × d tiles from shared memory: O_i and dO_i for
  // D_i = rowsum(dO ∘ O), and dQ_i before adding dS K_j in place. Row statistics in shared memory:
  // the exponent's offset and factor (from m_i, l_i) stored by one thread a row, D_i by one lane a row
  // after its warp's reduction, all three read by bwd_probs (flash_bwd_common.cuh).
  f.push_back({.name = "fa1-bwd",
               .source = "cuda/kernels/flash1_bwd.cuh",
               .matmuls = {kGridSharedStaged, kGridShared, kGridSharedStaged, kGridShared},
               .barriers_per_step = 3,
               .base_registers = 122.9,
               .per_fragment = 1.115,
               .overlap = Overlap::simulated,
               .overhead = {.per_step = 3.07, .per_score = 16.0, .per_row = 25.2},
               .waits = {.per_instruction = 1.97, .per_mio = 26.4},
               .smem_layout = SharedLayout::swizzled,
               .output_staged = true,
               .shared_tile_reads = 3,
               .row_stats = {.stored = 2, .stored_by_lane = 1, .read = 3}});
  return f;
}

}  // namespace iosim::detail
