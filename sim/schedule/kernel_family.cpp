#include "sim/schedule/kernel_family.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "sim/schedule/registry.h"

namespace iosim {

namespace {

constexpr MatmulRole kRowsRegShared{WarpSplit::rows, Operand::registers, Operand::shared};
constexpr MatmulRole kRowsSharedShared{WarpSplit::rows, Operand::shared, Operand::shared};
constexpr MatmulRole kGridShared{WarpSplit::grid, Operand::shared, Operand::shared};
// Dependency waits (kernel_family.h's DependencyWaits): ncu on the H200, 2026-12-01, every flash
// variant of the tile menu at (2, 16, 2048, 64) and (2, 16, 2048, 128), fp16
// (results/h200-2026-12-01c/stalls, scripts/fit-stalls.py; medians, with their range over the menu).
// fa2-fwd, 42 kernels: 1.33 wait cycles a warp instruction (1.16–1.55), 3.8 a MIO instruction (0.8–7.5),
// which is two populations by the rows a warp owns: 4.6 (1.4–7.5) for the 30 with 16 rows, 1.4
// (0.8–3.3) for the 12 with 32 (DependencyWaits::per_mio_multi_tile). Dispatch stalls: 0.33 issue
// cycles lost an instruction (0.20–0.67); the other families' are 0.04–0.09 (0.18 PyTorch's forward)
// and left out.
constexpr DependencyWaits kFa2FwdWaits{1.33, 4.6, 1.4, 0.33};

// The SM model of each family, chosen by measurement (docs/validation.md, "Barriers: a simulated SM";
// the 254-kernel H200 sweep of 2026-12-01 and the 162 held-out kernels, predicted both ways, median /
// 90th percentile of |error|): simulated (sm_sim.h) for fa2-fwd (7.1% / 22.1% against queued's 9.2% /
// 23.8%; held out 5.2% / 19.8% against 8.2% / 20.9%), fa1-fwd (3.4% / 11.3% against 5.4% / 10.7%) and
// fa1-bwd (14.5% / 26.3% against 15.3% / 28.2%), and the variants that share fa2-fwd's code; queued
// (mean-value analysis) for fa2-bwd (simulated: 8.5% / 29.5% against 7.2% / 15.2%: the simulation
// blocks its warps at each burst of dQ reductions, which the queueing averages) and for PyTorch's
// families (simulated: 19.6% and 14.0% on the SDPA sweep against 8.9% and 11.3%).
std::vector<KernelFamily> make_families() {
  std::vector<KernelFamily> f;
  // FlashAttention-2's forward (cuda/kernels/flash2_fwd.cuh; PyTorch's SDPA flash backend is the same
  // family, csrc/flash_attn/src/flash_fwd_kernel.h): warps own B_r / warps rows; Q's fragments stay in
  // registers; S = Q Kᵀ reads K by ldmatrix; P is reused from the S accumulators as the A operand of
  // P V, whose V comes by ldmatrix.trans; one row reduction per step (the max; the sum is kept per
  // lane and reduced once at the end); K, V double-buffered by cp.async (barriers: before the step,
  // after it).
  // Registers (ptxas 13.0, sm_90, 84 kernels): 44.2 + 1.261 per fragment register; median error 4.0%,
  // largest 16.5%.
  // Overhead (ncu on the H200, 42 kernels, 2026-12-01, results/h200-2026-12-01b/instruction-mix): 0.42
  // a row-block element + 2.85 a column-block element per lane, and 60.4 a step where the loop keeps
  // tiles in flight (2 or 3 stages); model total within 1.5% median, 9.0% largest (27.6% short without;
  // 5.6% and 21.4% with the same terms but the stages', whose absence left every multi-stage kernel
  // 8-20% short of its instructions while the one-stage kernels matched).
  f.push_back({"fa2-fwd", "cuda/kernels/flash2_fwd.cuh", FamilyModel::sm_steps, {kRowsRegShared, kRowsRegShared},
               2, 2, true, 44.2, 1.261, Overlap::simulated, {0, 0, 0.42, 2.85, 60.4}, kFa2FwdWaits, {}});
  // FlashAttention-2's backward (cuda/kernels/flash2_bwd.cuh, flash_bwd_common.cuh): five products a
  // step, each tiled by the warps as a grid, every operand from shared memory (P and dS are staged
  // there for the transposed products); no row reductions (P from the saved L); Q_i, dO_i, L_i, D_i
  // are loaded at the top of each step and waited for at once; three barriers a step.
  // Registers (40 kernels): 99.4 + 1.040 per fragment register; median 4.7%, largest 12.6%.
  // Overhead (20 kernels): 103 a step + 7.57 a score element + 25.0 a row-block element (the dQ
  // accumulation's index arithmetic, shared-memory read and bounds test for each RED) + 1.14 a
  // column-block element per lane; model total within 0.8% median, 2.7% largest (77% short without).
  // Dependency waits (20 kernels): 2.01 a warp instruction (1.87–2.11), 15.6 a MIO instruction (8.7–22.8).
  f.push_back({"fa2-bwd", "cuda/kernels/flash2_bwd.cuh", FamilyModel::sm_steps, {kGridShared}, 0, 3, false, 99.4,
               1.040, Overlap::queued, {103, 7.57, 25.0, 1.14}, {2.01, 15.6}, {}});
  // FlashAttention's Algorithm 1 (cuda/kernels/flash1_fwd.cuh): one block per head; each warp owns 16
  // rows of every Q tile, loads its Q_i, O_i, l_i, m_i and waits for them (no overlap), no block
  // barrier in the inner loop; Q_i from shared memory, P from registers; row max and row sum every
  // step.
  // Registers (34 kernels): 36.4 + 1.613 per fragment register; median 5.0%, largest 10.2%.
  // Overhead (17 kernels): 198 a step + 2.72 a score element + 8.30 a row-block element + 0.035 a
  // column-block element per lane (O_i, l_i, m_i read and written each step); model total within 0.3%
  // median, 1.7% largest (57% short without).
  // Dependency waits (17 kernels): 1.62 a warp instruction (1.50–1.84), 10.4 a MIO instruction (4.4–19.5).
  f.push_back({"fa1-fwd", "cuda/kernels/flash1_fwd.cuh", FamilyModel::sm_steps,
               {kRowsSharedShared, kRowsRegShared}, 4, 0, false, 36.4, 1.613, Overlap::simulated,
               {198, 2.72, 8.30, 0.0353}, {1.62, 10.4}, {}});
  // FlashAttention's Algorithm 4 (cuda/kernels/flash1_bwd.cuh): the backward step of
  // flash_bwd_common.cuh, as fa2-bwd, with Q_i, O_i, dO_i, dQ_i, l_i, m_i loaded each step.
  // Registers (28 kernels): 75.2 + 1.282 per fragment register; median 3.4%, largest 11.1%.
  // Overhead (13 kernels): 3.07 a step + 16.0 a score element + 25.2 a row-block element per lane (its
  // row reductions' shuffles, which the model does not issue for a backward, are among them); model
  // total within 3.9% median, 9.9% largest (68% short without).
  // Dependency waits (14 kernels): 1.97 a warp instruction (1.80–2.19), 26.4 a MIO instruction (17.2–45.8).
  f.push_back({"fa1-bwd", "cuda/kernels/flash1_bwd.cuh", FamilyModel::sm_steps, {kGridShared}, 0, 3, false, 75.2,
               1.282, Overlap::simulated, {3.07, 16.0, 25.2, 0}, {1.97, 26.4}, {}});
  // PyTorch's FlashAttention-2 forward (SDPA's flash backend, torch 2.11: flash-attention's
  // csrc/flash_attn/src/flash_fwd_kernel.h, compute_attn_1rowblock), at the tiles its launch template
  // picks on the H200 (ncu's kernel names: 128 × 128 at d = 64, 128 × 64 at d = 128, 4 warps): warps own
  // B_r / warps rows; Q is read from shared memory by ldmatrix in every step (Is_Q_in_regs is off); P
  // from the S accumulators; one copy of K and of V, each loaded while the other's product runs
  // (a two-stage pipeline whatever the schedule's copies); two barriers a step (ncu: 2.1 BAR a
  // warp-step at d = 64, 1.98 at d = 128); 255 registers at both tiles (ncu's launch__registers_per_
  // thread, ptxas's ceiling). Measured on the H200, 2026-12-01, results/h200-2026-12-01c/stalls.
  // Overhead (ncu's opcode histogram of its two kernels at (2, 16, 2048, {64, 128}), scripts/instruction-
  // mix.py → mix-torch.json, scripts/fit-instructions.py): 210 a step + 3.37 a score element per lane —
  // two kernels and two terms, an exact solve rather than a fit (most of it is FP32 beyond the
  // softmax's: FlashAttention-2 scales and rescales in FP32, 1,001 FP32 a warp-step at d = 64 against
  // the schedule's 584). Dependency waits (the same two kernels): 1.25 a warp instruction (1.15–1.34),
  // 2.0 a MIO instruction (1.3–2.7).
  f.push_back({"torch-fa2-fwd", "PyTorch SDPA flash backend: flash-attention csrc/flash_attn/src/flash_fwd_kernel.h",
               FamilyModel::sm_steps, {kRowsSharedShared, kRowsRegShared}, 2, 2, true, 255, 0, Overlap::queued,
               {210, 3.37, 0, 0}, {1.25, 2.0}, {}, 2});
  // PyTorch's FlashAttention-2 backward (flash_bwd_kernel.h, compute_dq_dk_dv_1colblock under
  // flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel: one block per K/V tile, dQ accumulated by atomics):
  // 128 × 128 at d = 64, 64 × 128 at d = 128, 8 warps; five products tiled by the warps as a grid,
  // operands from shared memory; Q and dO double-buffered (loads pipelined); three barriers a step
  // (ncu: 3.2 at d = 64, 3.1 at d = 128); 255 registers. Overhead (its two kernels, an exact solve as
  // the forward's): 7.75 a score element + 0.974 a column-block element per lane. Dependency waits: 1.97
  // a warp instruction (1.74–2.20), 8.9 a MIO instruction (8.8–8.9).
  f.push_back({"torch-fa2-bwd", "PyTorch SDPA flash backend: flash-attention csrc/flash_attn/src/flash_bwd_kernel.h",
               FamilyModel::sm_steps, {kGridShared}, 0, 3, true, 255, 0, Overlap::queued, {0, 7.75, 0, 0.974},
               {1.97, 8.9}, {}, 2});
  // Split-KV decoding and the d-tiled schedule have no kernel in cuda/: described as FlashAttention-2
  // forwards (the split kernel is one, over a slice of K/V; dtiled reads Q and K by slices of d from
  // shared memory).
  // Their registers are fa2-fwd's; their overhead is fa2-fwd's fit of 2026-12-01, before the multi-stage
  // term (they run one stage, where that fit matched ncu's counts at 0.98-1.00).
  f.push_back({"fa2-fwd-split", "flash-attention's flash_fwd_splitkv_kernel (no iosim kernel)",
               FamilyModel::sm_steps, {kRowsRegShared, kRowsRegShared}, 2, 2, true, 44.2, 1.261, Overlap::simulated,
               {25.9, 0, 0.63, 2.95}, kFa2FwdWaits, {}});
  f.push_back({"dtiled", "model only: d-sliced FlashAttention-2 forward (no iosim kernel)", FamilyModel::sm_steps,
               {kRowsSharedShared, kRowsRegShared}, 2, 2, true, 44.2, 1.261, Overlap::simulated,
               {25.9, 0, 0.63, 2.95}, kFa2FwdWaits, {}});
  // FlashAttention-3's forward (Shah et al. 2024, arXiv 2407.08608, §3.1-3.2; Dao-AILab/flash-attention
  // hopper/flash_fwd_kernel_sm90.h, mainloop_fwd_sm90_tma_gmma_ws.hpp), iosim's schedule flash3: one
  // producer warpgroup loads Q and the K/V stages by TMA; B_r / 64 consumer warpgroups each own 64
  // rows and run S = Q Kᵀ (both operands from shared memory) and O += P V (P from registers, V from
  // shared memory) as wgmma; the warpgroups ping-pong (named barriers) and each overlaps its softmax
  // with its next S product. One row reduction a step (the max), two stage waits (K_j, V_j full).
  // Registers: setmaxnreg as FlashAttention-3's kernel (LoadRegisterRequirement, MmaRegisterRequirement).
  // The backward and the shared-P forward are not fitted (no kernel of theirs counted): no step overhead
  // (the instructions the schedule does not name: the model is short by them) and no dependency waits.
  const std::vector<RegisterSplit> fa3_fwd_regs{{1, 56, 256}, {2, 24, 240}, {3, 32, 160}};
  // Overhead and dependency waits: ncu on iosim's flash3 forward (cuda/kernels/flash3, 128 × 128, two
  // stages, P in registers), fp16, d = 128, at (2, 16, 2048, 128) and (2, 16, 8192, 128), the H200,
  // 2026-12-01 (results/h200-2026-12-01c/flash3-mix): the model names the HGMMA and MUFU counts exactly
  // (1,048,576 and 16,777,216 HGMMA); the rest, less the schedule's FP32 (19% more than the kernel's),
  // is 131 and 106 warp instructions a consumer warp-step — one tile, so only the per-step term: 107,
  // the least-squares value over both (weighted by their steps). Waits: 1.59 and 1.62 cycles a warp
  // instruction ("wait"), 2.5 a MIO instruction (short scoreboard per ex2 and shuffle).
  KernelFamily fa3{"fa3-fwd", "FlashAttention-3 hopper/flash_fwd_kernel_sm90.h; cuda/kernels/flash3/flash3_fwd.cuh",
                   FamilyModel::sm_steps, {kRowsSharedShared, kRowsRegShared}, 2, 2, true, 0, 1, Overlap::staggered,
                   {107, 0, 0, 0}, {1.61, 2.5}, {MmaInstruction::wgmma, 4, true, true, fa3_fwd_regs}};
  f.push_back(fa3);
  // The same with P staged through shared memory for O += P V (FlashAttention-3's MmaPV_is_RS = false,
  // its choice at d ≤ 64 without a mask and at d ≤ 96).
  fa3.name = "fa3-fwd-ss";
  fa3.matmuls = {kRowsSharedShared, kRowsSharedShared};
  // Not measured: iosim's flash3 kernel keeps P in registers at every d, so no kernel of this variant
  // has been counted (no overhead, no waits: its predictions are optimistic).
  fa3.overhead = {};
  fa3.waits = {};
  f.push_back(fa3);
  // FlashAttention-3's backward (arXiv 2407.08608 §3.3 and appendix; hopper/flash_bwd_kernel_sm90.h,
  // mainloop_bwd_sm90_tma_gmma_ws.hpp): a producer warpgroup loads Q_i, dO_i, L_i, D_i by TMA (one or
  // two stages) and adds each dQ_i tile into dQacc (cp.reduce.async.bulk, fp32); two or three consumer warpgroups
  // run the five products as wgmma, operands from shared memory (P and dS are stored there for the
  // transposed ones). No softmax overlap (each product needs the one before); three waits a step (Q_i,
  // dO_i, the dQ staging buffer free).
  KernelFamily fa3b{"fa3-bwd", "FlashAttention-3 hopper/flash_bwd_kernel_sm90.h (model only until cuda/kernels/flash3)",
                    FamilyModel::sm_steps, {kGridShared}, 0, 3, true, 0, 1, Overlap::staggered, {}, {},
                    {MmaInstruction::wgmma, 4, true, false, {{2, 24, 240}, {3, 32, 160}}}};
  f.push_back(fa3b);
  // The project's Triton forward (python/iosim/triton/kernels.py, attn_fwd), FlashAttention-2's order:
  // priced from the compiled record of each configuration (compiled_kernel.h, compiled_step.h), so no
  // warp layout, register model, overhead or waits here. Queued: the barrier simulation was chosen for
  // fa2-fwd by measurement, which Triton's kernels have not had.
  f.push_back({"triton-fa2-fwd", "Triton: python/iosim/triton/kernels.py attn_fwd, its compiled record",
               FamilyModel::compiled, {}, 0, 0, true, 0, 1, Overlap::queued, {}, {}, {}});
  // Its backward (attn_bwd_preprocess, attn_bwd_dkdv, attn_bwd_dq): each kernel from its own record.
  f.push_back({"triton-fa2-bwd", "Triton: python/iosim/triton/kernels.py attn_bwd_*, their compiled records",
               FamilyModel::compiled, {}, 0, 0, true, 0, 1, Overlap::queued, {}, {}, {}});
  // Element-wise and row kernels (initialisation, the backward's pre- and post-processing, the
  // split-KV combine): no products, loads waited for at once. Registers: a base of 40 (not measured);
  // dependency waits not measured (none: memory-bound kernels, whose loads the model waits for).
  f.push_back({"elementwise", "cuda/kernels/flash_aux.cu", FamilyModel::sm_steps, {}, 0, 0, false, 40, 1,
               Overlap::queued, {}, {}, {}});
  // Standard attention runs cuBLAS GEMMs and a softmax kernel whose inner structure iosim does not
  // describe: the roofline (each resource at its measured rate). Registers: 40 + accumulators (an
  // estimate; cuBLAS chooses its own).
  f.push_back({"library", "cuBLAS (cuda/kernels/naive.cu)", FamilyModel::roofline, {}, 0, 0, false, 40, 1,
               Overlap::queued, {}, {}, {}});
  // PyTorch's eager kernels of standard attention (the `eager` schedule; ATen's
  // vectorized_elementwise_kernel, softmax_warp_forward / cunn_SoftMaxForward*, softmax_warp_backward /
  // cunn_SoftMaxBackward*, which of them by the row length: results/h200-2026-12-04-torch-kernels):
  // their speed is not a resource's rate (the softmax forward moves 1.1–2.8 TB/s on the H200 by row
  // length, the element-wise products 4.3–4.4), so each is priced at its own, measured alone.
  for (const char* name : {"torch-unary", "torch-binary", "torch-softmax-fwd", "torch-softmax-bwd"}) {
    f.push_back({name, "PyTorch ATen (aten/src/ATen/native/cuda/SoftMax.cu, Loops.cuh)", FamilyModel::measured_rate,
                 {}, 0, 0, false, 40, 1, Overlap::queued, {}, {}, {}});
  }
  return f;
}

}  // namespace

const std::vector<KernelFamily>& kernel_families() {
  static const std::vector<KernelFamily> all = make_families();
  return all;
}

std::uint32_t family_registers(const KernelFamily& family, double fragment_registers) {
  return static_cast<std::uint32_t>(std::ceil(family.base_registers + family.per_fragment * fragment_registers));
}

const RegisterSplit* register_split(const KernelFamily& family, std::uint32_t consumer_groups) {
  for (const RegisterSplit& r : family.hopper.register_splits) {
    if (r.consumer_groups == consumer_groups) return &r;
  }
  return nullptr;
}

const KernelFamily& family_of(std::string_view kernel_name, KernelSource source) {
  std::string_view family = "library";
  for (const ScheduleEntry& s : schedule_catalog()) {
    const std::span<const KernelFamilyOf> kernels = source == KernelSource::iosim     ? s.kernels
                                                    : source == KernelSource::pytorch ? s.pytorch_kernels
                                                                                      : s.triton_kernels;
    for (const KernelFamilyOf& k : kernels) {
      if (k.kernel == kernel_name) family = k.family;
    }
  }
  const auto& all = kernel_families();
  return *std::find_if(all.begin(), all.end(), [&](const KernelFamily& k) { return k.name == family; });
}

}  // namespace iosim
