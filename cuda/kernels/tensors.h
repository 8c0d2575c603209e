// Which tensors a KernelSpec's buffers hold and which its pass writes, with their element counts.
// Shared by AttentionBuffers, unsupported() (memory check) and the tests.
#pragma once

#include <cstdint>
#include <vector>

#include "cuda/backend.h"
#include "cuda/kernels/decode_plan.h"
#include "sim/core/tensor.h"

namespace iosim::gpu::detail {

/// Pages of one K/V sequence (the last one partly filled), or 0 when K and V are contiguous.
[[nodiscard]] constexpr std::uint64_t kv_pages(const KernelSpec& s) {
  if (s.page_size <= 0) return 0;
  const auto p = static_cast<std::uint64_t>(s.page_size);
  return (static_cast<std::uint64_t>(s.n_kv) + p - 1) / p;
}

/// What a flashdecode spec writes: O, L and, split, the partials; with `inputs` also Q, K, V.
[[nodiscard]] inline std::vector<Tensor> written_decode_tensors(const KernelSpec& spec, bool inputs) {
  std::vector<Tensor> t;
  if (inputs) {
    t.push_back(Tensor::Q);
    t.push_back(Tensor::K);
    t.push_back(Tensor::V);
  }
  t.push_back(Tensor::O);
  t.push_back(Tensor::L);
  if (decode_plan(spec).splits > 1) {
    t.push_back(Tensor::Opart);
    t.push_back(Tensor::Lpart);
  }
  return t;
}

/// Whether the backward of `spec` writes dK, dV per query head first, into dKexp and dVexp, and sums
/// each group's after (flash_aux.cu): the flash backwards with grouped K/V heads (group > 1).
[[nodiscard]] inline bool grouped_grads(const KernelSpec& spec) {
  return spec.pass == Direction::bwd && spec.algo != Algo::naive && group_size(spec) > 1;
}

/// The tensors spec's pass writes (its results and intermediates).
[[nodiscard]] inline std::vector<Tensor> written_tensors(const KernelSpec& spec) {
  if (spec.pass == Direction::fwd) {
    switch (spec.algo) {
      case Algo::naive: return {Tensor::S, Tensor::P, Tensor::O};
      case Algo::flash1: return {Tensor::O, Tensor::l, Tensor::m};
      case Algo::flash2:
      case Algo::flash3: return {Tensor::O, Tensor::L};
      case Algo::flashdecode:
      case Algo::flashdecode_heads: return written_decode_tensors(spec, false);
    }
  }
  std::vector<Tensor> t;
  switch (spec.algo) {
    case Algo::naive: return {Tensor::dV, Tensor::dP, Tensor::dS, Tensor::dQ, Tensor::dK};
    case Algo::flash1: t = {Tensor::dQ, Tensor::dK, Tensor::dV}; break;
    case Algo::flash2:
    case Algo::flash3: t = {Tensor::D, Tensor::dQacc, Tensor::dQ, Tensor::dK, Tensor::dV}; break;
    case Algo::flashdecode:
    case Algo::flashdecode_heads: return {};  // no backward
  }
  if (grouped_grads(spec)) t.insert(t.end(), {Tensor::dKexp, Tensor::dVexp});
  return t;
}

/// Every tensor the buffers of `spec` hold: the pass's inputs and outputs, and for a backward spec
/// also what its forward writes (prepare_backward runs it into the same buffers).
[[nodiscard]] inline std::vector<Tensor> held_tensors(const KernelSpec& spec) {
  if (is_decode(spec.algo)) {
    std::vector<Tensor> t = written_decode_tensors(spec, true);
    if (spec.page_size > 0) t.push_back(Tensor::BT);
    return t;
  }
  std::vector<Tensor> t = {Tensor::Q, Tensor::K, Tensor::V, Tensor::O};
  if (spec.page_size > 0) t.push_back(Tensor::BT);
  switch (spec.algo) {
    case Algo::naive: t.insert(t.end(), {Tensor::S, Tensor::P}); break;
    case Algo::flash1: t.insert(t.end(), {Tensor::l, Tensor::m}); break;
    case Algo::flash2:
    case Algo::flash3: t.push_back(Tensor::L); break;
    case Algo::flashdecode:
    case Algo::flashdecode_heads: break;  // above
  }
  if (spec.pass == Direction::bwd) {
    t.push_back(Tensor::dO);
    const std::vector<Tensor> written = written_tensors(spec);
    t.insert(t.end(), written.begin(), written.end());
  }
  return t;
}

/// The results check_accuracy compares with the reference.
[[nodiscard]] inline std::vector<Tensor> result_tensors(const KernelSpec& spec) {
  if (is_decode(spec.algo)) return {Tensor::O, Tensor::L};
  if (spec.pass == Direction::fwd) return {Tensor::O};
  return {Tensor::dQ, Tensor::dK, Tensor::dV};
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
    copies = is_decode(spec.algo) ? static_cast<std::uint64_t>(decode_plan(spec).splits) : 0;
    if (copies == 1) copies = 0;
  }
  return copies * (s.heads == Heads::kv ? bkv : bh) * extent(s.rows, n, nkv, d) * extent(s.cols, n, nkv, d);
}

[[nodiscard]] inline std::uint64_t tensor_bytes(const KernelSpec& spec, Tensor t) {
  return tensor_elements(spec, t) * size_bytes(storage_type(t, spec.dtype));
}

}  // namespace iosim::gpu::detail

namespace iosim::gpu::detail {

/// Elements of the per-query-head dK (or dV) a flash backward writes when K/V heads are shared
/// (group > 1; dKexp, FlashAttention-2's dk_expanded), summed over the group into dK afterwards; 0
/// otherwise.
[[nodiscard]] inline std::uint64_t expanded_grad_elements(const KernelSpec& spec) {
  return grouped_grads(spec) ? tensor_elements(spec, Tensor::dKexp) : 0;
}

}  // namespace iosim::gpu::detail
