// Shared-memory wavefronts: what Nsight Compute's l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld and
// _op_st count, derived from the instructions the SM model issues for a step, for the families whose
// shared-memory layout the model knows (KernelFamily::smem_layout).
//
// A wavefront is one pass of the shared memory's 32 banks × 4 bytes. On a conflict-free (swizzled)
// layout an instruction takes as many wavefronts as 128-byte pieces it moves:
//   - ldmatrix.x4: four 8 × 8 matrices of 16-bit elements, 512 bytes: 4 load wavefronts;
//   - a 32-bit st.shared per lane (accumulator pairs packed to 16 bits: P and dS staged for a later
//     product, the output tile staged for the global stores): 1 store wavefront;
//   - a 16-byte ld.shared per lane (the staged output read back for 16-byte global stores): 4 load
//     wavefronts;
//   - a backward's row statistics (4 bytes a row): a warp's store of 32 rows, or one lane's of one,
//     and a warp's load of 8 rows (a quad a row, one word: broadcast), 1 wavefront each.
// cp.async and TMA fill shared memory outside the LSU's wavefronts (the data pipe counts them
// elsewhere), and wgmma reads its operands through a descriptor, not the LSU: both count 0.
#pragma once

#include <cstdint>

#include "sim/schedule/kernel_family.h"
#include "sim/timing/instruction_mix.h"
#include "sim/timing/step_profile.h"

namespace iosim {

struct SmemWavefronts {
  double ld = 0;  ///< l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld
  double st = 0;  ///< l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st
  [[nodiscard]] double total() const { return ld + st; }
  SmemWavefronts& add(const SmemWavefronts& o, double times = 1) {
    ld += o.ld * times;
    st += o.st * times;
    return *this;
  }
};

/// A kernel's wavefronts where its layout is not known: its shared-memory bytes over one conflict-free
/// wavefront (128 bytes), an estimate.
[[nodiscard]] double estimated_wavefronts(double smem_bytes);

/// Whether the model counts `f`'s wavefronts (its layout is known) rather than leaving them to an estimate.
[[nodiscard]] bool counts_wavefronts(const KernelFamily& f);

/// One block's wavefronts a step for the row statistics `r` of a step whose first product has `rows`
/// rows (B_r), run by `warps` warps: stores of 32 rows an instruction (or one lane's a row), and each
/// warp's loads of its fragments' rows, 8 rows a load (KernelFamily::RowStats).
[[nodiscard]] SmemWavefronts row_stat_wavefronts(const KernelFamily::RowStats& r, std::uint64_t rows,
                                                 std::uint64_t warps);

/// One block's wavefronts in step `s` of a kernel of family `f` run by `warps` warps, given the step's
/// per-warp instruction mix `mix` (sm_model.h's step_cost). `first`: the block's first step, where a
/// product's A operand held in registers across the loop (Q in FlashAttention-2's forward) is read
/// from shared memory once by ldmatrix. 16-bit operands. Zero for a family whose layout is unknown.
[[nodiscard]] SmemWavefronts step_wavefronts(const Segment& s, bool first, const KernelFamily& f,
                                             const InstructionMix& mix, std::uint64_t warps);

}  // namespace iosim
