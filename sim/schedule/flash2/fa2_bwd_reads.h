// DRAM reads of PyTorch's FlashAttention-2 backward (SDPA's flash backend, fp16/bf16 inputs), kernel by
// kernel, each started on an empty L2: what Nsight Compute counts under its default cache control, which
// flushes the L2 before every kernel it profiles (and before each replay pass of it). A timed run keeps
// the L2 between the three kernels, as the GPU model does; this closed form is the per-kernel view, so
// that ncu's counts can be set beside the model without that flush mistaken for missing traffic.
//   preprocess (flash_bwd_dot_do_o_kernel): reads O and dO once; writes D and zeroes dQaccum (no reads);
//   main (flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel): reads Q, dO, LSE and D, K and V once each, and
//     the fp32 dQaccum once: its reductions run in the L2, which fetches each line from DRAM on first
//     touch (a floor: where dQaccum and the tiles do not fit the L2 together, lines are fetched again);
//   convert (flash_bwd_convert_dq_kernel): reads dQaccum (fp32) once.
// Rows: PyTorch allocates D and dQaccum for the query length rounded up to 128 rows; rows past n are
// not counted here (every measured shape has n a multiple of 128, where the two agree).
#pragma once

#include <cstdint>

namespace iosim::detail {

struct Fa2BwdReads {
  std::uint64_t preprocess = 0;
  std::uint64_t main = 0;
  std::uint64_t convert = 0;
};

/// `bh`: batch × query heads, `bh_kv`: batch × key/value heads, `elem`: bytes of an input element.
constexpr Fa2BwdReads fa2_bwd_flushed_reads(std::uint64_t bh, std::uint64_t bh_kv, std::uint64_t n,
                                            std::uint64_t n_kv, std::uint64_t d, std::uint64_t elem) {
  constexpr std::uint64_t fp32 = 4;
  const std::uint64_t rows = bh * n * d * elem;  // one of Q, O, dO
  const std::uint64_t acc = bh * n * d * fp32;   // dQaccum
  return {.preprocess = 2 * rows,
          .main = 2 * rows + 2 * bh_kv * n_kv * d * elem + 2 * bh * n * fp32 + acc,
          .convert = acc};
}

}  // namespace iosim::detail
