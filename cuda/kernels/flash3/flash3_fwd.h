// flash3 forward — the host side of the FlashAttention-3 kernels for sm_90a (cuda/kernels/flash3/
// flash3_fwd.cuh): what a caller passes and the instantiations this build holds. No CUDA or CUTLASS
// headers here beyond the runtime's types, so host code includes it freely.
//
// Layouts (those of every iosim kernel, cuda/kernels/flash2_fwd.cuh): Q and O [heads, n, d], K and V
// [kv_heads, n_kv, d], row-major, d contiguous, heads = batch · query heads; query head h reads K/V head
// h / (heads / kv_heads). L [heads, n], fp32: L = max_c(scale·s) + ln Σ_c exp(scale·s − max), natural
// log, +inf for a row that sees no key (causal, n > n_kv; its O row is 0). scale = 1/√d. Causal: row r
// sees key c ≤ r + n_kv − n; with a sliding window of W keys also c > r + n_kv − n − W (sim/core/mask.h).
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <vector>

namespace iosim::gpu::flash3 {

enum class DType { fp16, bf16 };

[[nodiscard]] inline const char* name(DType t) { return t == DType::fp16 ? "fp16" : "bf16"; }

struct FwdArgs {
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  void* o = nullptr;
  float* lse = nullptr;
  int heads = 1;     ///< batch · query heads
  int kv_heads = 1;  ///< batch · K/V heads, dividing heads
  int n = 0;
  int n_kv = 0;
  bool causal = false;
  int window = 0;  ///< with causal: the sliding window's keys (sim/core/mask.h); 0: none
  /// Paged K/V (cuda/kernels/paged_kv.h): k and v are caches of kv_heads · pages slots of page_size rows
  /// each, and row r of K/V head h lies in slot block_table[h · pages + ⌊r / page_size⌋] at row r mod
  /// page_size. nullptr: K and V contiguous, [kv_heads, n_kv, d].
  const int* block_table = nullptr;
  int page_size = 0;  ///< a power of two, at least kPageBox, dividing B_c or divided by it (paged)
  int pages = 0;      ///< pages of one K/V head's sequence, ⌈n_kv / page_size⌉ (paged)
};

/// Rows of one TMA copy of a paged K/V tile where pages are smaller than the tile: a tile of B_c rows is
/// then B_c / kPageBox copies, each within one page, so the smallest page the kernels take. (Pages of
/// B_c rows or more: one copy a tile.)
inline constexpr int kPageBox = 16;

/// One compiled forward kernel: its element type, head dimension and tiles (B_r rows of Q per block,
/// two consumer warpgroups of B_r / 2 rows; B_c rows of K/V per stage; `stages` K/V stages).
struct FwdKernel {
  DType dtype;
  int d;
  int br;
  int bc;
  int stages;
  bool overlap;              ///< FA3's ping-pong and intra-warpgroup overlap (else the plain order)
  int threads;               ///< per block: one producer warpgroup and the consumers
  int smem_bytes;            ///< dynamic shared memory per block
  /// Launches on `stream`; returns the launch's error (cudaErrorInvalidValue for arguments the kernel
  /// cannot take: n or n_kv ≤ 0, heads not a multiple of kv_heads, a head dimension not its own, a page
  /// size that is not a power of two of at least kPageBox rows fitting B_c, or pages ≠ ⌈n_kv / page⌉).
  cudaError_t (*launch)(const FwdArgs&, cudaStream_t);
  [[nodiscard]] std::string label() const {
    return std::string(name(dtype)) + " d" + std::to_string(d) + " " + std::to_string(br) + "x" + std::to_string(bc) +
           " s" + std::to_string(stages) + (overlap ? " overlap" : " plain");
  }
};

/// Every flash3 forward kernel of this build: the kernel registry's flash3 forward rows (cuda/kernels/
/// menu.csv; the default build: fp16, d = 128, FA3's overlapped schedule only; with
/// IOSIM_CUDA_FULL_TILES: fp16 and bf16, d = 64 and 128, each overlapped and plain), in the menu's order.
/// Causal or not is an argument.
[[nodiscard]] const std::vector<FwdKernel>& fwd_kernels();

}  // namespace iosim::gpu::flash3
