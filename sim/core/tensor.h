// The tensors an attention schedule moves, and the type each is stored in.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "sim/core/dtype.h"

namespace iosim {

enum class Tensor : std::uint8_t {
  Q, K, V, O,    // inputs and output
  S, P,          // scores and probabilities (n × n_kv, only naive keeps them in HBM)
  l, m,          // running row sum and row max (flash1)
  L,             // row logsumexp (flash2, split-KV)
  dO, dQ, dK, dV,
  dS, dP,        // gradients of S and P (naive backward keeps them in HBM)
  D,             // rowsum(dO ∘ O), precomputed by flash2's backward
  dQacc,         // fp32 accumulator of dQ (flash2 backward, atomics)
  Opart, Lpart,  // split-KV partial outputs and their logsumexp (flash-decoding)
  dKexp, dVexp,  // dK, dV per query head, before a group's are summed (grouped-query backward)
  BT,            // the block table of paged K/V: one int32 page slot per page per K/V sequence
};

inline constexpr std::size_t kTensorCount = static_cast<std::size_t>(Tensor::BT) + 1;

inline constexpr std::array<Tensor, kTensorCount> kAllTensors = {
    Tensor::Q,  Tensor::K,  Tensor::V,  Tensor::O,  Tensor::S,  Tensor::P,     Tensor::l,
    Tensor::m,  Tensor::L,  Tensor::dO, Tensor::dQ, Tensor::dK, Tensor::dV,    Tensor::dS,
    Tensor::dP, Tensor::D,  Tensor::dQacc, Tensor::Opart, Tensor::Lpart, Tensor::dKexp, Tensor::dVexp, Tensor::BT};

[[nodiscard]] constexpr std::size_t index(Tensor t) { return static_cast<std::size_t>(t); }

[[nodiscard]] constexpr std::string_view name(Tensor t) {
  constexpr std::array<std::string_view, kTensorCount> names = {
      "Q", "K", "V", "O", "S", "P", "l", "m", "L", "dO", "dQ", "dK", "dV", "dS", "dP", "D", "dQacc",
      "Opart", "Lpart", "dKexp", "dVexp", "BT"};
  return names[index(t)];
}

/// One extent of a tensor, per head: the queries n, the keys n_kv, the head dimension d, 1 (a
/// per-row statistic's column), or the pages of a paged K/V sequence (⌈n_kv / page size⌉).
enum class Extent : std::uint8_t { n, n_kv, d, one, pages };

/// Whose heads a tensor has: one per query head, or one per key/value head (grouped-query attention).
enum class Heads : std::uint8_t { query, kv };

/// Where a tensor lies in device memory (sim/gpu/address_map.h). Contiguous: row-major
/// [stored heads, rows, cols]; `split`: one such copy per split of a split-KV schedule, slice-major.
/// Paged (K and V): when the problem has a page size, each stored head's rows lie in pages of that many
/// rows, placed where the block table (Tensor::BT) says; contiguous otherwise.
struct TensorLayout {
  enum class Kind : std::uint8_t { contiguous, paged } kind = Kind::contiguous;
  Heads stored_heads = Heads::query;  ///< the heads of its copies in memory: K, V, dK, dV per key/value head
  bool split = false;
};

/// Everything iosim knows of one tensor's shape: rows × cols per head, over whose heads, in which type
/// (the problem's, or fp32 for statistics and accumulators), and its address layout. Problem sizes
/// (problem.h), the address map, the executor's HBM (sim/exec/hbm.h), the trace and the CUDA buffers
/// derive from this table.
struct TensorShape {
  Extent rows = Extent::n;
  Extent cols = Extent::d;
  Heads heads = Heads::query;
  bool fp32 = false;  ///< stored in fp32 whatever the problem's type
  /// Its size depends on the schedule (the n × n_kv matrices a schedule may keep per block, the
  /// split-KV partials): tensor_elements() reports 0.
  bool schedule_sized = false;
  TensorLayout layout;
  /// A per-query-head scratch of a key/value head's tensor (dKexp of dK): it exists only when K/V heads
  /// are shared (group > 1); tensor_elements() reports 0 otherwise.
  bool grouped_scratch = false;
  /// The block table of paged K/V: int32 entries; it exists only when the problem is paged
  /// (tensor_elements() reports 0 otherwise).
  bool block_table = false;
};

namespace detail {
using E = Extent;
using H = Heads;
inline constexpr TensorLayout kQueryHeads{};                                           // the default
inline constexpr TensorLayout kKvHeads{TensorLayout::Kind::contiguous, Heads::kv, false};
inline constexpr TensorLayout kPagedKv{TensorLayout::Kind::paged, Heads::kv, false};
inline constexpr TensorLayout kSplit{TensorLayout::Kind::contiguous, Heads::query, true};
}  // namespace detail

/// The table, in the order of Tensor: rows, cols, heads, fp32, schedule-sized, layout, grouped scratch,
/// block table.
inline constexpr std::array<TensorShape, kTensorCount> kTensorShapes = {{
    {detail::E::n, detail::E::d, detail::H::query, false, false, detail::kQueryHeads, false, false},     // Q
    {detail::E::n_kv, detail::E::d, detail::H::kv, false, false, detail::kPagedKv, false, false},        // K
    {detail::E::n_kv, detail::E::d, detail::H::kv, false, false, detail::kPagedKv, false, false},        // V
    {detail::E::n, detail::E::d, detail::H::query, false, false, detail::kQueryHeads, false, false},     // O
    {detail::E::n, detail::E::n_kv, detail::H::query, false, true, detail::kQueryHeads, false, false},   // S
    {detail::E::n, detail::E::n_kv, detail::H::query, false, true, detail::kQueryHeads, false, false},   // P
    {detail::E::n, detail::E::one, detail::H::query, true, false, detail::kQueryHeads, false, false},    // l
    {detail::E::n, detail::E::one, detail::H::query, true, false, detail::kQueryHeads, false, false},    // m
    {detail::E::n, detail::E::one, detail::H::query, true, false, detail::kQueryHeads, false, false},    // L
    {detail::E::n, detail::E::d, detail::H::query, false, false, detail::kQueryHeads, false, false},     // dO
    {detail::E::n, detail::E::d, detail::H::query, false, false, detail::kQueryHeads, false, false},     // dQ
    {detail::E::n_kv, detail::E::d, detail::H::kv, false, false, detail::kKvHeads, false, false},        // dK
    {detail::E::n_kv, detail::E::d, detail::H::kv, false, false, detail::kKvHeads, false, false},        // dV
    {detail::E::n, detail::E::n_kv, detail::H::query, false, true, detail::kQueryHeads, false, false},   // dS
    {detail::E::n, detail::E::n_kv, detail::H::query, false, true, detail::kQueryHeads, false, false},   // dP
    {detail::E::n, detail::E::one, detail::H::query, true, false, detail::kQueryHeads, false, false},    // D
    {detail::E::n, detail::E::d, detail::H::query, true, false, detail::kQueryHeads, false, false},      // dQacc
    {detail::E::n, detail::E::d, detail::H::query, true, true, detail::kSplit, false, false},            // Opart
    {detail::E::n, detail::E::one, detail::H::query, true, true, detail::kSplit, false, false},          // Lpart
    {detail::E::n_kv, detail::E::d, detail::H::query, false, false, detail::kQueryHeads, true, false},   // dKexp
    {detail::E::n_kv, detail::E::d, detail::H::query, false, false, detail::kQueryHeads, true, false},   // dVexp
    {detail::E::pages, detail::E::one, detail::H::kv, false, false, detail::kKvHeads, false, true},      // BT
}};

[[nodiscard]] constexpr const TensorShape& shape_of(Tensor t) { return kTensorShapes[index(t)]; }

/// The size of extent `e` for n queries, n_kv keys, head dimension d and `pages` pages a sequence.
[[nodiscard]] constexpr std::uint64_t extent(Extent e, std::uint64_t n, std::uint64_t n_kv, std::uint64_t d,
                                             std::uint64_t pages = 0) {
  switch (e) {
    case Extent::n: return n;
    case Extent::n_kv: return n_kv;
    case Extent::d: return d;
    case Extent::one: return 1;
    case Extent::pages: return pages;
  }
  return 0;
}

/// Statistics and accumulators are fp32 in every real implementation; the rest use the problem's type.
/// The block table holds int32 slots.
[[nodiscard]] constexpr DType storage_type(Tensor t, DType element) {
  if (shape_of(t).block_table) return DType::int32;
  return shape_of(t).fp32 ? DType::fp32 : element;
}

}  // namespace iosim
