// Which kernels take a sliding window and paged K/V (KernelSpec::window, page_size), and the one-line
// refusal for the rest: the window in every kernel (naive's softmax, cuda/kernels/naive.cu; flash1's and
// flash2's forward and backward, cuda/kernels/flash1_*.cuh, flash2_*.cuh; flashdecode(-heads),
// flashdecode.cuh; flash3, flash3/flash3_fwd.cuh, flash3_bwd.cuh), pages in flash2's and flash3's
// forward and flashdecode(-heads); as the model
// has them (sim/core/mask.h, sim/core/paging.h). Host only, no CUDA, beside backend.h: unsupported_in_build(), measure, validate
// and the CPU tests read it.
#pragma once

#include <bit>
#include <string>

#include "cuda/backend.h"

namespace iosim::gpu {

/// The smallest page flash3's forward takes: its producer copies a paged K/V tile by TMA boxes of this
/// many rows, each within one page (flash3::kPageBox, cuda/kernels/flash3/flash3_fwd.h, the same).
inline constexpr int kFlash3MinPage = 16;

/// Empty when `s`'s kernel runs its window and pages (or has none); otherwise one line saying why not.
[[nodiscard]] inline std::string window_paging_unsupported(const KernelSpec& s) {
  const CudaKernels& k = described(s);
  const bool paged = k.paged_fwd && s.pass == Direction::fwd;
  const bool tma_boxes = k.hopper_tma && s.pass == Direction::fwd;  // pages of whole TMA boxes
  const std::string kernel = std::string(s.schedule) + (s.pass == Direction::fwd ? " fwd" : " bwd");
  if (s.window < 0) return "--window must be positive (got " + std::to_string(s.window) + ")";
  if (s.window > 0) {
    if (!s.causal) return "--window needs the causal mask (a window ends at each query's diagonal)";
    if (s.window > s.n_kv) {
      return "--window must be at most n_kv (got " + std::to_string(s.window) + " with n_kv " + std::to_string(s.n_kv) + ")";
    }
  }
  if (s.page_size < 0) return "--page-size must be positive (got " + std::to_string(s.page_size) + ")";
  if (s.page_size > 0) {
    if (!paged) {
      return "--page-size: the " + kernel +
             " kernel has no paged K/V (flash2's and flash3's forward and flashdecode have)";
    }
    if (!std::has_single_bit(static_cast<unsigned>(s.page_size))) {
      return "--page-size must be a power of two (got " + std::to_string(s.page_size) + ")";
    }
    if (tma_boxes && s.page_size < kFlash3MinPage) {
      return "--page-size must be at least " + std::to_string(kFlash3MinPage) +
             " for the " + kernel + " kernel (its TMA copies K/V in boxes of " + std::to_string(kFlash3MinPage) +
             " rows; got " + std::to_string(s.page_size) + ")";
    }
    if (s.bc > 0 && s.bc % s.page_size != 0 && s.page_size % s.bc != 0) {
      return "--page-size " + std::to_string(s.page_size) + " and the K/V tile B_c = " + std::to_string(s.bc) +
             " must divide one another (a tile of whole pages, or a page of whole tiles)";
    }
  }
  return "";
}

}  // namespace iosim::gpu
