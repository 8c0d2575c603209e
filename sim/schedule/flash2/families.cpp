// flash2's kernel families (kernel_family.h): the project's FlashAttention-2 kernels, PyTorch's and the
// project's Triton kernels. How they were fitted: kernel_family.cpp.
#include <vector>

#include "sim/schedule/flash2/fa2_constants.h"
#include "sim/schedule/flash2/torch_spills.h"
#include "sim/schedule/kernel_family.h"

namespace iosim::detail {

std::vector<KernelFamily> flash2_families() {
  std::vector<KernelFamily> f;
  // FlashAttention-2's forward (cuda/kernels/flash2_fwd.cuh; PyTorch's SDPA flash backend is the same
  // design, csrc/flash_attn/src/flash_fwd_kernel.h): warps own B_r / warps rows; Q's fragments stay in
  // registers; S = Q Kᵀ reads K by ldmatrix; P is reused from the S accumulators as the A operand of
  // P V, whose V comes by ldmatrix.trans; one row reduction per step (the max; the sum is kept per
  // lane and reduced once at the end); K, V double-buffered by cp.async (barriers: before the step,
  // after it). The overhead's per_pipelined_step: the instructions a loop keeping tiles in flight (2 or
  // 3 stages) adds.
  f.push_back({.name = "fa2-fwd",
               .source = "cuda/kernels/flash2_fwd.cuh",
               .matmuls = {kRowsRegShared, kRowsRegShared},
               .shuffle_rounds_per_step = 2,
               .barriers_per_step = 2,
               .loads_pipelined = true,
               .base_registers = kFa2FwdRegisters.base,
               .per_fragment = kFa2FwdRegisters.per_fragment,
               .overlap = Overlap::simulated,
               .overhead = {.per_row = 0.42, .per_column = 2.85, .per_pipelined_step = kFa2FwdPipelinedStep},
               .waits = kFa2FwdWaits,
               .smem_layout = SharedLayout::swizzled,
               .output_staged = true});
  // FlashAttention-2's backward (cuda/kernels/flash2_bwd.cuh, flash_bwd_common.cuh): five products a
  // step, each tiled by the warps as a grid, every operand from shared memory (P and dS are staged
  // there for the transposed products); no row reductions (P from the saved L); Q_i, dO_i, L_i, D_i
  // are loaded at the top of each step and waited for at once; three barriers a step. The overhead's
  // per_row: the dQ accumulation's index arithmetic, shared-memory read and bounds test for each RED.
  // Row statistics in shared memory: L_i (as the exponent's offset), a factor of 1 and D_i, stored by
  // one thread a row and read by bwd_probs (flash_bwd_common.cuh).
  f.push_back({.name = "fa2-bwd",
               .source = "cuda/kernels/flash2_bwd.cuh",
               .matmuls = {kGridSharedStaged, kGridShared, kGridSharedStaged, kGridShared},
               .barriers_per_step = 3,
               .base_registers = 66.6,
               .per_fragment = 1.310,
               .overhead = {.per_step = 103, .per_score = 7.57, .per_row = 25.0, .per_column = 1.14},
               .waits = {.per_instruction = 2.01, .per_mio = 15.6},
               .smem_layout = SharedLayout::swizzled,
               .output_staged = true,
               .row_stats = {.stored = 3, .read = 3}});
  // PyTorch's FlashAttention-2 forward (SDPA's flash backend: flash-attention's
  // csrc/flash_attn/src/flash_fwd_kernel.h, compute_attn_1rowblock), at the tiles its launch template
  // picks (128 × 128 at d = 64, 128 × 64 at d = 128, 4 warps): warps own B_r / warps rows; Q is read
  // from shared memory by ldmatrix in every step (Is_Q_in_regs is off); P from the S accumulators; one
  // copy of K and of V, each loaded while the other's product runs (a two-stage pipeline whatever the
  // schedule's copies); two barriers a step; 255 registers at both tiles (ptxas's ceiling). Most of its
  // overhead is FP32 beyond the softmax's: FlashAttention-2 scales and rescales in FP32.
  f.push_back({.name = "torch-fa2-fwd",
               .source = "PyTorch SDPA flash backend: flash-attention csrc/flash_attn/src/flash_fwd_kernel.h",
               .matmuls = {kRowsSharedShared, kRowsRegShared},
               .shuffle_rounds_per_step = 2,
               .barriers_per_step = 2,
               .loads_pipelined = true,
               .reads_beside_products = true,
               .base_registers = 255,
               .per_fragment = 0,
               .overhead = {.per_step = 210, .per_score = 3.37},
               .waits = {.per_instruction = 1.27,
                         .per_mio = 1.20,
                         .dispatch = 0.06,
                         .shared = {.per_instruction = 0.07, .per_mio = 1.35, .dispatch = 0.14}},
               .load_stages = 2,
               .spills = {kTorchFa2FwdSpills.begin(), kTorchFa2FwdSpills.end()}});
  // PyTorch's FlashAttention-2 backward (flash_bwd_kernel.h, compute_dq_dk_dv_1colblock under
  // flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel: one block per K/V tile, dQ accumulated by atomics):
  // 128 × 128 at d = 64, 64 × 128 at d = 128, 8 warps; five products tiled by the warps as a grid,
  // operands from shared memory; Q and dO double-buffered (loads pipelined); three barriers a step;
  // 255 registers. Its dQ atomics are issued from the accumulators and followed by dK += dSᵀ Q with no
  // barrier between, so they drain while that product runs.
  f.push_back({.name = "torch-fa2-bwd",
               .source = "PyTorch SDPA flash backend: flash-attention csrc/flash_attn/src/flash_bwd_kernel.h",
               .matmuls = {kGridShared},
               .barriers_per_step = 3,
               .loads_pipelined = true,
               .reductions_overlapped = true,
               .base_registers = 255,
               .per_fragment = 0,
               .overhead = {.per_score = 7.75, .per_column = 0.974},
               .waits = {.per_instruction = 1.97, .per_mio = 8.9},
               .load_stages = 2,
               .spills = {kTorchFa2BwdSpills.begin(), kTorchFa2BwdSpills.end()}});
  // The project's Triton forward (python/iosim/triton/kernels.py, attn_fwd), FlashAttention-2's order:
  // priced from the compiled record of each configuration (compiled_kernel.h, compiled_step.h), so no
  // warp layout, register model, overhead or waits here. Queued: the barrier simulation was chosen for
  // fa2-fwd by measurement, which Triton's kernels have not had. Its products are warpgroup MMAs that
  // read their operands from shared memory themselves, and its copies land there asynchronously, so a
  // warp's shared-memory work runs beside its products (reads_beside_products).
  f.push_back({.name = "triton-fa2-fwd",
               .source = "Triton: python/iosim/triton/kernels.py attn_fwd, its compiled record",
               .model = FamilyModel::compiled,
               .loads_pipelined = true,
               .reads_beside_products = true});
  // Its backward (attn_bwd_preprocess, attn_bwd_dkdv, attn_bwd_dq): each kernel from its own record.
  f.push_back({.name = "triton-fa2-bwd",
               .source = "Triton: python/iosim/triton/kernels.py attn_bwd_*, their compiled records",
               .model = FamilyModel::compiled,
               .loads_pipelined = true});
  return f;
}

}  // namespace iosim::detail
