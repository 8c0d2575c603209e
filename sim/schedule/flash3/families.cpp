// flash3's kernel families (kernel_family.h): FlashAttention-3's forward (P in registers or staged
// through shared memory) and backward. How they were fitted: kernel_family.cpp.
#include <vector>

#include "sim/schedule/kernel_family.h"

namespace iosim::detail {

std::vector<KernelFamily> flash3_families() {
  std::vector<KernelFamily> f;
  // FlashAttention-3's forward (Shah et al. 2024, arXiv 2407.08608, §3.1-3.2; Dao-AILab/flash-attention
  // hopper/flash_fwd_kernel_sm90.h, mainloop_fwd_sm90_tma_gmma_ws.hpp), iosim's schedule flash3: one
  // producer warpgroup loads Q and the K/V stages by TMA; B_r / 64 consumer warpgroups each own 64
  // rows and run S = Q Kᵀ (both operands from shared memory) and O += P V (P from registers, V from
  // shared memory) as wgmma; the warpgroups ping-pong (named barriers) and each overlaps its softmax
  // with its next S product. One row reduction a step (the max), two stage waits (K_j, V_j full).
  // Registers: setmaxnreg as FlashAttention-3's kernel (LoadRegisterRequirement, MmaRegisterRequirement).
  // Overhead and waits: ncu's counts of iosim's flash3 forward (P in registers), the per-step term only
  // (one tile); dispatch: its dispatch stalls per instruction, as fa2-fwd's. Its TMA copies are priced at
  // the config's pipeline.tma_copy_cycles (sm_model.cpp).
  KernelFamily fa3{.name = "fa3-fwd",
                   .source = "FlashAttention-3 hopper/flash_fwd_kernel_sm90.h; cuda/kernels/flash3/flash3_fwd.cuh",
                   .matmuls = {kRowsSharedShared, kRowsRegShared},
                   .shuffle_rounds_per_step = 2,
                   .barriers_per_step = 2,
                   .loads_pipelined = true,
                   .base_registers = 0,
                   .overlap = Overlap::staggered,
                   .overhead = {.per_step = 107},
                   .waits = {.per_instruction = 1.61, .per_mio = 2.5, .dispatch = 0.61},
                   .hopper = {.mma = MmaInstruction::wgmma,
                              .producer_warps = 4,
                              .tma_loads = true,
                              .overlap_products = true,
                              .register_splits = {{1, 56, 256}, {2, 24, 240}, {3, 32, 160}}}};
  f.push_back(fa3);
  // The same with P staged through shared memory for O += P V (FlashAttention-3's MmaPV_is_RS = false,
  // its choice at d ≤ 64 without a mask and at d ≤ 96). Not measured: iosim's flash3 kernel keeps P in
  // registers at every d, so no kernel of this variant has been counted (no overhead, no waits: its
  // predictions are optimistic).
  fa3.name = "fa3-fwd-ss";
  fa3.matmuls = {kRowsSharedShared, kRowsSharedShared};
  fa3.overhead = {};
  fa3.waits = {};
  f.push_back(fa3);
  // FlashAttention-3's backward (arXiv 2407.08608 §3.3 and appendix; hopper/flash_bwd_kernel_sm90.h,
  // mainloop_bwd_sm90_tma_gmma_ws.hpp): a producer warpgroup loads Q_i, dO_i, L_i, D_i by TMA (one or
  // two stages) and adds each dQ_i tile into dQacc (cp.reduce.async.bulk, fp32); two or three consumer
  // warpgroups run the five products as wgmma, operands from shared memory (P and dS are stored there
  // for the transposed ones). No softmax overlap (each product needs the one before); three waits a
  // step (Q_i, dO_i, the dQ staging buffer free). No ping-pong: the consumers meet at the dS barrier
  // every step, so they run in lockstep. Overhead and waits: ncu's counts of iosim's flash3 backward
  // at d = 128, the per-step term only, as fa3-fwd's (results/kernel-family-fits.md).
  f.push_back({.name = "fa3-bwd",
               .source = "FlashAttention-3 hopper/flash_bwd_kernel_sm90.h; cuda/kernels/flash3/flash3_bwd.cuh",
               .matmuls = {kGridShared},
               .barriers_per_step = 3,
               .loads_pipelined = true,
               .base_registers = 0,
               .overlap = Overlap::lockstep,
               .overhead = {.per_step = 416},
               .waits = {.per_instruction = 1.33, .per_mio = 27.4, .dispatch = 0.38},
               .hopper = {.mma = MmaInstruction::wgmma,
                          .producer_warps = 4,
                          .tma_loads = true,
                          .register_splits = {{2, 24, 240}, {3, 32, 160}}}});
  return f;
}

}  // namespace iosim::detail
