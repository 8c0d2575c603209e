// A compiled kernel's own figures: what a compiler produced for one tile configuration, read from its
// machine code (for Triton: python/iosim/triton's record, SASS counted by pipe). The time model prices
// a kernel of a `compiled` family (kernel_family.h) from this record instead of deriving its
// instructions from the schedule and a fitted family. Plain data: src/ obtains records (it runs the
// compiler or reads its cache) and hands them to the model through KernelRequest::compiled.
#pragma once

#include <cstdint>
#include <string>

namespace iosim {

/// Warp instructions per warp by the pipe they issue to (python/iosim/triton/pipes.py's classes).
struct PipeCounts {
  double tensor = 0;   ///< tensor-core products: HGMMA (per warp of a warpgroup) or HMMA
  double mufu = 0;     ///< the special-function unit (MUFU.EX2, .RCP, ...)
  double alu = 0;      ///< FP32, integer and conversion instructions on the per-thread pipes
  double uniform = 0;  ///< the uniform datapath (one value a warp)
  double shared = 0;   ///< shared-memory loads and stores (LDS, STS, LDSM, STSM)
  double global = 0;   ///< global memory and copies into shared memory (LDG, STG, LDGSTS, TMA)
  double shuffle = 0;  ///< warp shuffles
  double barrier = 0;  ///< block and warpgroup synchronisation (BAR, DEPBAR, WARPGROUP, mbarriers)
  double other = 0;    ///< control flow, constants, special registers
  [[nodiscard]] double total() const {
    return tensor + mufu + alu + uniform + shared + global + shuffle + barrier + other;
  }
};

/// One stretch of the kernel's code (a loop's iteration, the prologue, the epilogue), per warp.
struct CompiledCode {
  PipeCounts pipes;
  /// Its tensor-core work in m16n8k16s (2·16·8·16 FLOPs) per warp, from the instructions' shapes: an
  /// HGMMA m64nNk16 is issued by each of a warpgroup's four warps, each computing 16 of its 64 rows, so
  /// N / 8 per warp; an HMMA.16816 is one. 0 where the record gives no shapes (then derived from the
  /// tiles, compiled_step.h).
  double mma_per_warp = 0;
  bool warpgroup_mma = true;   ///< its products are HGMMA (wgmma, sm_90a), not HMMA (mma.sync)
  double block_barriers = 0;   ///< BAR instructions among `pipes.barrier` (the rest: warpgroup fences, waits)
  /// Local-memory (register spill) traffic among `pipes.global`: LDL and STL instructions per warp, and
  /// the bytes they move per warp (32 lanes × each instruction's width; the widths are the kernel's
  /// average, ptxas's spill bytes over its LDL and STL instructions, src/config/compiled_record.cpp).
  double local_loads = 0;
  double local_stores = 0;
  double local_bytes = 0;
};

/// One compiled variant of a kernel at one tile configuration.
struct CompiledKernel {
  std::string source;  ///< the compiler and target, e.g. "Triton 3.6.0, sm_90"
  std::string kernel;  ///< the kernel compiled (Triton's name, e.g. attn_bwd_dq); "" where unnamed
  std::string config;  ///< the configuration it was compiled for, as the compiler's driver names it
  std::uint64_t block_m = 0;  ///< rows of Q per block (B_r)
  std::uint64_t block_n = 0;  ///< rows of K and V per loop iteration (B_c)
  std::uint64_t head_dim = 0;
  bool causal = false;
  std::uint32_t warps = 0;
  std::uint32_t stages = 0;
  /// Why it did not compile or cannot launch, naming the configuration ("" when it compiled): the
  /// compiler's own reason. The other fields are then meaningless.
  std::string error;
  std::uint32_t registers = 0;       ///< per thread (ptxas)
  std::uint64_t spill_bytes = 0;     ///< spill stores per thread (ptxas); their traffic is CompiledCode's local_*
  std::uint64_t shared_bytes = 0;    ///< dynamic shared memory per block
  CompiledCode unmasked;             ///< one iteration of the loop over K/V tiles no mask touches
  CompiledCode masked;               ///< one iteration of the causal diagonal's loop (has_masked)
  bool has_masked = false;
  CompiledCode prologue;             ///< once per block, before the loop
  CompiledCode epilogue;             ///< once per block, after it

  [[nodiscard]] bool compiled() const { return error.empty(); }
};

}  // namespace iosim
