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

// Registers are fitted to ptxas -v of each family's compiled kernels (scripts/fit-registers.py), the
// per-step overhead and the dependency waits to ncu's counts and stalls of them on a GPU
// (scripts/fit-instructions.py, scripts/fit-stalls.py). results/kernel-family-fits.md says what each fit
// was made on and how well it matched. Each family's SM model (Overlap) was chosen by predicting the time
// sweeps both ways (results/validation-history.md, "Barriers: a simulated SM").

// FlashAttention-2's forward's waits, which the variants sharing its code take too. per_mio_multi_tile:
// a warp owning 32 rows waits less per MIO instruction than one owning 16.
// FlashAttention-2's forward's register model (scripts/fit-registers.py), which the variants without a
// kernel of their own (split-KV decoding, dtiled) take too.
constexpr struct {
  double base, per_fragment;
} kFa2FwdRegisters{55.9, 1.168};

constexpr DependencyWaits kFa2FwdWaits{.per_instruction = 1.33, .per_mio = 4.6, .per_mio_multi_tile = 1.4,
                                       .dispatch = 0.33};

std::vector<KernelFamily> make_families() {
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
               .overhead = {.per_row = 0.42, .per_column = 2.85, .per_pipelined_step = 60.4},
               .waits = kFa2FwdWaits});
  // FlashAttention-2's backward (cuda/kernels/flash2_bwd.cuh, flash_bwd_common.cuh): five products a
  // step, each tiled by the warps as a grid, every operand from shared memory (P and dS are staged
  // there for the transposed products); no row reductions (P from the saved L); Q_i, dO_i, L_i, D_i
  // are loaded at the top of each step and waited for at once; three barriers a step. The overhead's
  // per_row: the dQ accumulation's index arithmetic, shared-memory read and bounds test for each RED.
  f.push_back({.name = "fa2-bwd",
               .source = "cuda/kernels/flash2_bwd.cuh",
               .matmuls = {kGridShared},
               .barriers_per_step = 3,
               .base_registers = 66.6,
               .per_fragment = 1.310,
               .overhead = {.per_step = 103, .per_score = 7.57, .per_row = 25.0, .per_column = 1.14},
               .waits = {.per_instruction = 2.01, .per_mio = 15.6}});
  // FlashAttention's Algorithm 1 (cuda/kernels/flash1_fwd.cuh): one block per head; each warp owns 16
  // rows of every Q tile, loads its Q_i, O_i, l_i, m_i and waits for them (no overlap), no block
  // barrier in the inner loop; Q_i from shared memory, P from registers; row max and row sum every
  // step (O_i, l_i, m_i read and written each step: the overhead's per_row and per_column).
  f.push_back({.name = "fa1-fwd",
               .source = "cuda/kernels/flash1_fwd.cuh",
               .matmuls = {kRowsSharedShared, kRowsRegShared},
               .shuffle_rounds_per_step = 4,
               .base_registers = -32.2,
               .per_fragment = 2.186,
               .overlap = Overlap::simulated,
               .overhead = {.per_step = 198, .per_score = 2.72, .per_row = 8.30, .per_column = 0.0353},
               .waits = {.per_instruction = 1.62, .per_mio = 10.4}});
  // FlashAttention's Algorithm 4 (cuda/kernels/flash1_bwd.cuh): the backward step of
  // flash_bwd_common.cuh, as fa2-bwd, with Q_i, O_i, dO_i, dQ_i, l_i, m_i loaded each step (its row
  // reductions' shuffles, which the model does not issue for a backward, are among the overhead).
  f.push_back({.name = "fa1-bwd",
               .source = "cuda/kernels/flash1_bwd.cuh",
               .matmuls = {kGridShared},
               .barriers_per_step = 3,
               .base_registers = 122.9,
               .per_fragment = 1.115,
               .overlap = Overlap::simulated,
               .overhead = {.per_step = 3.07, .per_score = 16.0, .per_row = 25.2},
               .waits = {.per_instruction = 1.97, .per_mio = 26.4}});
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
               .base_registers = 255,
               .per_fragment = 0,
               .overhead = {.per_step = 210, .per_score = 3.37},
               .waits = {.per_instruction = 1.25, .per_mio = 2.0},
               .load_stages = 2});
  // PyTorch's FlashAttention-2 backward (flash_bwd_kernel.h, compute_dq_dk_dv_1colblock under
  // flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel: one block per K/V tile, dQ accumulated by atomics):
  // 128 × 128 at d = 64, 64 × 128 at d = 128, 8 warps; five products tiled by the warps as a grid,
  // operands from shared memory; Q and dO double-buffered (loads pipelined); three barriers a step;
  // 255 registers.
  f.push_back({.name = "torch-fa2-bwd",
               .source = "PyTorch SDPA flash backend: flash-attention csrc/flash_attn/src/flash_bwd_kernel.h",
               .matmuls = {kGridShared},
               .barriers_per_step = 3,
               .loads_pipelined = true,
               .base_registers = 255,
               .per_fragment = 0,
               .overhead = {.per_score = 7.75, .per_column = 0.974},
               .waits = {.per_instruction = 1.97, .per_mio = 8.9},
               .load_stages = 2});
  // Split-KV decoding and the d-tiled schedule have no kernel in cuda/: described as FlashAttention-2
  // forwards (the split kernel is one, over a slice of K/V; dtiled reads Q and K by slices of d from
  // shared memory), with fa2-fwd's registers and waits and its one-stage overhead (they run one stage).
  const StepOverhead fa2_fwd_one_stage{.per_step = 25.9, .per_row = 0.63, .per_column = 2.95};
  KernelFamily split{.name = "fa2-fwd-split",
                     .source = "flash-attention's flash_fwd_splitkv_kernel (no iosim kernel)",
                     .matmuls = {kRowsRegShared, kRowsRegShared},
                     .shuffle_rounds_per_step = 2,
                     .barriers_per_step = 2,
                     .loads_pipelined = true,
                     .base_registers = kFa2FwdRegisters.base,
                     .per_fragment = kFa2FwdRegisters.per_fragment,
                     .overlap = Overlap::simulated,
                     .overhead = fa2_fwd_one_stage,
                     .waits = kFa2FwdWaits};
  f.push_back(split);
  split.name = "dtiled";
  split.source = "model only: d-sliced FlashAttention-2 forward (no iosim kernel)";
  split.matmuls = {kRowsSharedShared, kRowsRegShared};
  f.push_back(split);
  // FlashAttention-3's forward (Shah et al. 2024, arXiv 2407.08608, §3.1-3.2; Dao-AILab/flash-attention
  // hopper/flash_fwd_kernel_sm90.h, mainloop_fwd_sm90_tma_gmma_ws.hpp), iosim's schedule flash3: one
  // producer warpgroup loads Q and the K/V stages by TMA; B_r / 64 consumer warpgroups each own 64
  // rows and run S = Q Kᵀ (both operands from shared memory) and O += P V (P from registers, V from
  // shared memory) as wgmma; the warpgroups ping-pong (named barriers) and each overlaps its softmax
  // with its next S product. One row reduction a step (the max), two stage waits (K_j, V_j full).
  // Registers: setmaxnreg as FlashAttention-3's kernel (LoadRegisterRequirement, MmaRegisterRequirement).
  // Overhead and waits: ncu's counts of iosim's flash3 forward (P in registers), the per-step term only
  // (one tile); dispatch: its dispatch stalls per instruction, as fa2-fwd's.
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
  // every step, so they run in lockstep. Not fitted: no step overhead and no dependency waits.
  f.push_back({.name = "fa3-bwd",
               .source = "FlashAttention-3 hopper/flash_bwd_kernel_sm90.h (model only until cuda/kernels/flash3)",
               .matmuls = {kGridShared},
               .barriers_per_step = 3,
               .loads_pipelined = true,
               .base_registers = 0,
               .overlap = Overlap::lockstep,
               .hopper = {.mma = MmaInstruction::wgmma,
                          .producer_warps = 4,
                          .tma_loads = true,
                          .register_splits = {{2, 24, 240}, {3, 32, 160}}}});
  // The project's Triton forward (python/iosim/triton/kernels.py, attn_fwd), FlashAttention-2's order:
  // priced from the compiled record of each configuration (compiled_kernel.h, compiled_step.h), so no
  // warp layout, register model, overhead or waits here. Queued: the barrier simulation was chosen for
  // fa2-fwd by measurement, which Triton's kernels have not had.
  f.push_back({.name = "triton-fa2-fwd",
               .source = "Triton: python/iosim/triton/kernels.py attn_fwd, its compiled record",
               .model = FamilyModel::compiled,
               .loads_pipelined = true});
  // Its backward (attn_bwd_preprocess, attn_bwd_dkdv, attn_bwd_dq): each kernel from its own record.
  f.push_back({.name = "triton-fa2-bwd",
               .source = "Triton: python/iosim/triton/kernels.py attn_bwd_*, their compiled records",
               .model = FamilyModel::compiled,
               .loads_pipelined = true});
  // Element-wise and row kernels (initialisation, the backward's pre- and post-processing, the
  // split-KV combine): no products, loads waited for at once. Registers: a base of 40 (not measured);
  // dependency waits not measured (none: memory-bound kernels, whose loads the model waits for).
  f.push_back({.name = "elementwise", .source = "cuda/kernels/flash_aux.cu", .base_registers = 40});
  // Standard attention runs cuBLAS GEMMs and a softmax kernel whose inner structure iosim does not
  // describe: the roofline (each resource at its measured rate). Registers: 40 + accumulators (an
  // estimate; cuBLAS chooses its own).
  f.push_back({.name = "library",
               .source = "cuBLAS (cuda/kernels/naive.cu)",
               .model = FamilyModel::roofline,
               .base_registers = 40});
  // PyTorch's eager kernels of standard attention (the `eager` schedule; ATen's
  // vectorized_elementwise_kernel, softmax_warp_forward / cunn_SoftMaxForward*, softmax_warp_backward /
  // cunn_SoftMaxBackward*, which of them by the row length): their speed is not a resource's rate (the
  // softmax forward's depends on the row length), so each is priced at its own, measured alone.
  for (const char* name : {"torch-unary", "torch-binary", "torch-softmax-fwd", "torch-softmax-bwd"}) {
    f.push_back({.name = name,
                 .source = "PyTorch ATen (aten/src/ATen/native/cuda/SoftMax.cu, Loops.cuh)",
                 .model = FamilyModel::measured_rate,
                 .base_registers = 40});
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
