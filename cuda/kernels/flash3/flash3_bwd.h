// flash3 backward — the host side of the FlashAttention-3 backward kernels for sm_90a (cuda/kernels/
// flash3/flash3_bwd.cuh). Plain C++ and the runtime's types, like flash3_fwd.h.
//
// Layouts (flash3_fwd.h's): Q, O, dO, dQ [heads, n, d]; K, V, dK, dV [kv_heads, n_kv, d]; L [heads, n]
// (the forward's: natural log, +inf for a row that sees no key); scale = 1/√d; causal: row r sees key
// c ≤ r + n_kv − n, with a sliding window of W keys also c > r + n_kv − n − W (sim/core/mask.h). Scratch the caller provides: D [heads, n] fp32 (rowsum(dO ∘ O)), dQacc
// [heads, n, d] fp32 (each row's 16-byte chunks permuted: chunk k of row r holds dQ's chunk k XOR r % 8,
// r the row's index in its head; the main kernel's bulk reduce writes it so, the convert kernel reads it
// so; the same bytes as an unpermuted one), and with grouped K/V heads (heads > kv_heads) dKexp, dVexp [heads, n_kv, d]
// (per query head; summed over each group into dK, dV at the end).
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "cuda/kernels/flash3/flash3_fwd.h"

namespace iosim::gpu::flash3 {

struct BwdArgs {
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  const void* o = nullptr;
  const void* dout = nullptr;
  const float* lse = nullptr;
  float* dsum = nullptr;    ///< D, written by the preprocess
  float* dq_acc = nullptr;  ///< fp32 dQ accumulator, zeroed by the preprocess
  void* dq = nullptr;
  void* dk = nullptr;
  void* dv = nullptr;
  void* dk_exp = nullptr;  ///< per query head, needed when heads > kv_heads
  void* dv_exp = nullptr;
  int heads = 1;
  int kv_heads = 1;
  int n = 0;
  int n_kv = 0;
  bool causal = false;
  int window = 0;  ///< with causal: the sliding window's keys; 0: none
};

/// One compiled backward: B_r rows of Q per inner step (stages of Q and dO), B_c keys per block (two
/// consumer warpgroups of B_c / 2 keys each).
struct BwdKernel {
  DType dtype;
  int d;
  int br;
  int bc;
  int stages;
  int threads;     ///< per block of the main kernel
  int smem_bytes;  ///< dynamic shared memory per block of the main kernel
  /// Enqueues the whole backward on `stream`: preprocess (D, dQacc = 0), the main kernel, the
  /// conversion of dQacc into dQ and, with grouped K/V heads, the group sum of dKexp, dVexp.
  cudaError_t (*launch)(const BwdArgs&, cudaStream_t);
  /// The main kernel only (the preprocess must have run): for timing it apart.
  cudaError_t (*launch_main)(const BwdArgs&, cudaStream_t);
  [[nodiscard]] std::string label() const {
    return std::string("bwd ") + name(dtype) + " d" + std::to_string(d) + " " + std::to_string(br) + "x" +
           std::to_string(bc) + " s" + std::to_string(stages);
  }
};

/// Every flash3 backward kernel of this build: the kernel registry's flash3 backward rows (cuda/kernels/
/// menu.csv; the default build: fp16 d = 128; IOSIM_CUDA_FULL_TILES: fp16 and bf16, d = 64 and 128).
[[nodiscard]] const std::vector<BwdKernel>& bwd_kernels();

}  // namespace iosim::gpu::flash3
