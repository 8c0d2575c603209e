// Which tensors a KernelSpec's buffers hold and which its pass writes, with their element counts: from
// its schedule's registry entry (what each pass's kernels write, sim/schedule/cuda_kernels.h) and the
// tensor table (sim/core/tensor.h: shapes, and which tensors exist only for some problems). Shared by
// AttentionBuffers, unsupported() (memory check) and the tests.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "cuda/backend.h"
#include "cuda/kernels/decode_plan.h"
#include "sim/core/tensor.h"
#include "sim/schedule/cuda_kernels.h"

namespace iosim::gpu::detail {

/// Pages of one K/V sequence (the last one partly filled), or 0 when K and V are contiguous.
[[nodiscard]] constexpr std::uint64_t kv_pages(const KernelSpec& s) {
  if (s.page_size <= 0) return 0;
  const auto p = static_cast<std::uint64_t>(s.page_size);
  return (static_cast<std::uint64_t>(s.n_kv) + p - 1) / p;
}

/// Elements of tensor `t` over all batch · heads (K, V, dK, dV: batch · kv_heads; dKexp, dVexp: none
/// unless group > 1).
[[nodiscard]] inline std::uint64_t tensor_elements(const KernelSpec& spec, Tensor t) {
  const auto bh = static_cast<std::uint64_t>(spec.batch) * static_cast<std::uint64_t>(spec.heads);
  const auto bkv = static_cast<std::uint64_t>(spec.batch) * static_cast<std::uint64_t>(kv_head_count(spec));
  const auto n = static_cast<std::uint64_t>(spec.n), nkv = static_cast<std::uint64_t>(spec.n_kv);
  const auto d = static_cast<std::uint64_t>(spec.d);
  const TensorShape& s = shape_of(t);  // the table of sim/core/tensor.h
  if (s.grouped_scratch && group_size(spec) == 1) return 0;
  // Paged K/V (sim/core/paging.h): K and V hold whole pages, the last one of each sequence padded; the
  // block table one int32 entry a page.
  const std::uint64_t pages = kv_pages(spec);
  if (pages > 0 && (t == Tensor::K || t == Tensor::V)) return bkv * pages * static_cast<std::uint64_t>(spec.page_size) * d;
  if (t == Tensor::BT) return bkv * pages;
  std::uint64_t copies = 1;
  if (s.layout.split) {  // the split-KV partials: one copy per split of a decode spec that splits
    copies = described(spec).decode ? static_cast<std::uint64_t>(decode_plan(spec).splits) : 0;
    if (copies == 1) copies = 0;
  }
  return copies * (s.heads == Heads::kv ? bkv : bh) * extent(s.rows, n, nkv, d) * extent(s.cols, n, nkv, d);
}

[[nodiscard]] inline std::uint64_t tensor_bytes(const KernelSpec& spec, Tensor t) {
  return tensor_elements(spec, t) * size_bytes(storage_type(t, spec.dtype));
}

/// The CUDA kernels of spec's schedule, as its registry entry states them (sim/schedule/cuda_kernels.h);
/// std::invalid_argument where no entry of spec.schedule has CUDA kernels (unsupported_in_build refuses such a
/// spec first).
[[nodiscard]] const CudaKernels& kernels_of(const KernelSpec& spec);

/// The device tensors of spec's pass: what its kernels write and which of those are checked.
[[nodiscard]] inline const CudaPassTensors& pass_tensors(const KernelSpec& spec) {
  return spec.pass == Direction::fwd ? kernels_of(spec).fwd : kernels_of(spec).bwd;
}

/// The inputs spec's pass reads, filled with random numbers: Q, K, V, and the backward's dO.
[[nodiscard]] inline std::span<const Tensor> input_tensors(const KernelSpec& spec) {
  if (spec.pass == Direction::fwd) return kCudaFwdInputs;
  return kCudaBwdInputs;
}

/// Whether the table (sim/core/tensor.h) makes tensor `t` exist only for some problems: the split-KV
/// partials (a split-KV pass that splits), a grouped backward's per-query-head scratch (group > 1), the
/// block table (paged K/V). Where it does not exist, tensor_elements() is 0 and no buffer holds it.
[[nodiscard]] constexpr bool conditional_tensor(Tensor t) {
  const TensorShape& s = shape_of(t);
  return s.layout.split || s.grouped_scratch || s.block_table;
}

/// `list` less the conditional tensors that spec does not have.
[[nodiscard]] inline std::vector<Tensor> existing(const KernelSpec& spec, std::span<const Tensor> list) {
  std::vector<Tensor> t;
  for (const Tensor x : list) {
    if (!conditional_tensor(x) || tensor_elements(spec, x) > 0) t.push_back(x);
  }
  return t;
}

/// The tensors spec's pass writes (its results and intermediates), as its entry lists them.
[[nodiscard]] inline std::vector<Tensor> written_tensors(const KernelSpec& spec) {
  return existing(spec, pass_tensors(spec).writes);
}

/// Every tensor the buffers of `spec` hold: Q, K, V, what the forward writes (a backward spec's too:
/// prepare_backward runs the forward into the same buffers), the block table where K/V are paged, and
/// a backward's dO and what it writes.
[[nodiscard]] inline std::vector<Tensor> held_tensors(const KernelSpec& spec) {
  std::vector<Tensor> t(kCudaFwdInputs.begin(), kCudaFwdInputs.end());
  KernelSpec fwd = spec;
  fwd.pass = Direction::fwd;
  const std::vector<Tensor> forward = written_tensors(fwd);
  t.insert(t.end(), forward.begin(), forward.end());
  if (tensor_elements(spec, Tensor::BT) > 0) t.push_back(Tensor::BT);
  if (spec.pass == Direction::bwd) {
    t.push_back(Tensor::dO);
    const std::vector<Tensor> written = written_tensors(spec);
    t.insert(t.end(), written.begin(), written.end());
  }
  return t;
}

/// The results check_accuracy compares with the reference.
[[nodiscard]] inline std::vector<Tensor> result_tensors(const KernelSpec& spec) {
  const std::span<const Tensor> r = pass_tensors(spec).results;
  return {r.begin(), r.end()};
}

/// Elements of the per-query-head dK (or dV) a flash backward writes when K/V heads are shared
/// (group > 1; dKexp, FlashAttention-2's dk_expanded), summed over the group into dK afterwards; 0
/// where spec's pass does not write it.
[[nodiscard]] inline std::uint64_t expanded_grad_elements(const KernelSpec& spec) {
  const std::vector<Tensor> written = written_tensors(spec);
  const bool writes = std::find(written.begin(), written.end(), Tensor::dKexp) != written.end();
  return writes ? tensor_elements(spec, Tensor::dKexp) : 0;
}

}  // namespace iosim::gpu::detail
