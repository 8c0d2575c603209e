// Internal to the backend: the device buffers of one schedule run and the call that launches its
// kernels. Implemented in cuda/kernels/ (dispatch.cu and the per-schedule files); used by the
// accuracy check, the measurement harness and the GPU tests.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cuda/backend.h"
#include "sim/core/tensor.h"

namespace iosim::gpu::detail {

/// Every device tensor one KernelSpec may touch, in [batch, heads, rows, cols] order, contiguous.
/// Q, K, V, O, dO, dQ, dK, dV, S, P, dS, dP use spec.dtype; l, m, L, D, dQacc are fp32.
/// A backward spec also holds what its forward saves (O and l, m for flash1; O and L for flash2;
/// P for naive).
class AttentionBuffers {
 public:
  explicit AttentionBuffers(const KernelSpec& spec);
  ~AttentionBuffers();
  AttentionBuffers(const AttentionBuffers&) = delete;
  AttentionBuffers& operator=(const AttentionBuffers&) = delete;

  [[nodiscard]] const KernelSpec& spec() const { return spec_; }

  /// Q, K, V (and dO for a backward spec) drawn from N(0, 1) with `seed`, on `stream`.
  void fill_inputs(std::uint64_t seed, cudaStream_t stream);
  /// Every output of spec.pass set to a NaN pattern, so that an element nothing wrote is found.
  void poison_outputs(cudaStream_t stream);

  /// Device pointer of tensor `t`, or nullptr when this spec has none.
  [[nodiscard]] void* device(Tensor t) const;
  /// dK or dV as the flash backward kernels write it: per query head when K/V heads are shared
  /// (a scratch buffer, summed over each group into dK / dV by the launcher), else device(t).
  [[nodiscard]] void* grad_per_query_head(Tensor t) const;
  /// Element count of tensor `t` over all batch × heads (0 when absent).
  [[nodiscard]] std::uint64_t elements(Tensor t) const;
  /// Copy of tensor `t` as doubles (synchronises `stream`).
  [[nodiscard]] std::vector<double> to_host(Tensor t, cudaStream_t stream) const;

 private:
  KernelSpec spec_;
  struct Impl;
  Impl* impl_;
};

/// Enqueues every kernel of spec's schedule and pass on `stream`, in the schedule's order, and
/// nothing else (no allocation, no synchronisation), so that a profiled range holds exactly the
/// schedule. For a backward spec the forward's saved tensors must be in `buf` (prepare_backward).
void launch(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream);

/// Runs the forward pass of spec's schedule, so that buf holds what the backward reads.
void prepare_backward(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream);

/// "flash2 fwd d=64 fp16": how refusals and errors name a kernel request (dispatch.cpp).
[[nodiscard]] std::string spec_text(const KernelSpec& s);

}  // namespace iosim::gpu::detail
