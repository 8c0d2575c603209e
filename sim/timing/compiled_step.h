// One step of a block of a `compiled` family (kernel_family.h's FamilyModel::compiled): its warp
// instructions taken from the kernel's compiled record (compiled_kernel.h) rather than derived from the
// schedule and a fitted family. The result is the StepCost the SM model's queueing and simulation
// (sm_model.h) already price.
//
// Which code a segment of the block's profile (step_profile.h) runs:
//   a step with products      one iteration of the unmasked loop, or of the masked loop where the
//                             schedule masked it (flash2_forward_step_masked: the causal diagonal);
//   the block's first segment  the prologue as well, once;
//   a segment without products the epilogue.
// What each pipe count costs one warp, in its sub-partition's cycles (sm_model.h's SmRates):
//   tensor   the step's m16n8k16 equivalents at wgmma_interval for HGMMA (CompiledCode::mma_per_warp;
//            where the record has no shapes, derived from the tiles: the step's products' FLOPs over the
//            block's warps — for FlashAttention-2's forward S = Q Kᵀ (N = B_c) and O += P V (N = d),
//            so an HGMMA's N / 8 m16n8k16s average (B_c + d) / 16 at one m64 tile a product and k16),
//            at mma_interval for HMMA;
//   mufu     ex2_interval a warp instruction (the special-function unit);
//   alu      fp32_interval a warp instruction (FMA and integer pipes priced as the FP32 pipe);
//   shuffle  shfl_interval;
//   the rest (uniform, shared, global, barrier, other) one issue slot each.
// Every instruction takes an issue slot. The chain of one warp: each product's tensor time or one wgmma
// latency, whichever is longer, the MUFU and FP32 work with one latency each, a shuffle latency where
// it shuffles, the block barriers' latency, one shared-memory latency where it reloads spills, and the
// rest at one a cycle. The loads' round trip as the derived model has it, covered by stages − 2 steps
// (Triton issues a tile's copies after the products of the step before its use; see the .cpp). Spills
// (LDL, STL) move their bytes through the L1, at shared memory's bandwidth. No dependency waits: none
// are measured for compiled records.
#pragma once

#include "sim/schedule/compiled_kernel.h"
#include "sim/timing/sm_model.h"

namespace iosim {

/// The compiled code a segment runs (see above), summed: a loop iteration, plus the prologue when
/// `first`, or the epilogue for a segment without products.
[[nodiscard]] CompiledCode compiled_code_of(const Segment& s, bool first, const CompiledKernel& k);

[[nodiscard]] StepCost compiled_step_cost(const Segment& s, bool first, const CompiledKernel& k,
                                          const BlockShape& shape, const SmRates& r);

}  // namespace iosim
