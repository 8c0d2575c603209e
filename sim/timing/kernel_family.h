// Kernel families: how a kind of CUDA kernel turns a schedule's step into warp instructions — its
// warp layout, where its matrix operands come from, how its stages use shared memory, its register
// model and which of its work overlaps. Data, not code paths: the SM model (sm_model.h) reads a
// family and the step profile (step_profile.h) and nothing else, so a new kind of kernel (a
// warp-specialised Hopper kernel, a Triton kernel) is a new description in kernel_family.cpp.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace iosim {

/// How the warps of a block share one matrix product's output (m × n).
enum class WarpSplit : std::uint8_t {
  rows,  ///< each warp owns m / warps whole rows and all n columns (FlashAttention-2's forward)
  grid,  ///< the warps tile m × n as a grid, as many along m as divide it (the backward's products)
};

/// Where a matrix product's operand comes from for the tensor cores.
enum class Operand : std::uint8_t {
  registers,  ///< already in registers (Q held across the loop, P reused from the S accumulators)
  shared,     ///< read from shared memory by ldmatrix, once per warp that needs it
};

struct MatmulRole {
  WarpSplit split = WarpSplit::rows;
  Operand a = Operand::shared;
  Operand b = Operand::shared;
};

/// How the time of a family's kernels is found.
enum class FamilyModel : std::uint8_t {
  sm_steps,  ///< the SM model, step by step (sm_model.h)
  roofline,  ///< a library kernel whose inner structure iosim does not describe (cuBLAS): each resource
             ///< at its rate, the largest one binding
};

struct KernelFamily {
  std::string_view name;
  std::string_view source;  ///< where the description comes from (the kernel's own file)
  FamilyModel model = FamilyModel::sm_steps;
  /// The products of one step, in the order the schedule emits them; a step with more products
  /// than roles repeats the last role.
  std::vector<MatmulRole> matmuls;
  /// Rounds of warp shuffles per row of a step: the row reductions across the four lanes of a quad
  /// that hold one row of an m16n8 accumulator (two rounds per reduction, xor 1 and xor 2).
  std::uint32_t shuffle_rounds_per_step = 0;
  /// Block barriers (__syncthreads) per step.
  std::uint32_t barriers_per_step = 0;
  /// The loads of step j + 1 are issued before step j computes (a cp.async ring of `stages` copies):
  /// with s stages, s − 1 steps of compute cover a load's latency. False: every step waits for its
  /// own loads (the latency of a round trip to the L2 or DRAM is on the critical path).
  bool loads_pipelined = false;
  /// Registers per thread beyond the accumulators and the operands held in registers: addresses,
  /// indices, B fragments in flight, softmax temporaries.
  std::uint32_t base_registers = 0;
  /// Operand elements held in registers across the loop per block (FlashAttention-2's Q_i fragments:
  /// B_r × d), as a multiple of B_r × d; 0 when none.
  std::uint32_t held_rows_times_d = 0;
};

/// The family of a kernel, by the kernel's name (Kernel::name()); the roofline family for a name
/// no family describes.
[[nodiscard]] const KernelFamily& family_of(std::string_view kernel_name);

/// Every family, for tests and docs.
[[nodiscard]] const std::vector<KernelFamily>& kernel_families();

}  // namespace iosim
