// Where each tensor lives in device memory, and which lines and sectors a tile of it touches.
//
// Every tensor lies as its row of the tensor table (sim/core/tensor.h) says, through its layout object
// (tensor_layout.h): today row-major [heads, rows, cols] in its type, as the CUDA backend lays it out
// ([batch, heads, rows, d] with batch and heads merged): Q, O, dO, dQ, dQacc, l, m, L, D and the
// n × n_kv matrices per query head; K and V per key/value head; dK and dV per query head (expanded,
// as FlashAttention-2 writes them before summing a group); split-KV partials one copy per split,
// slice-major. Tensors start on separate 2 MiB boundaries, in a fixed order.
//
// Paged K/V (sim/core/paging.h): K and V are caches of page slots, each page_size rows of one stored
// head; row r of sequence s lies in slot slot_s(⌊r / P⌋) at row r mod P, and the block table (BT,
// int32, [sequence, page]) holds the slots. A tile's rows split into runs, one a page, each where its
// slot lies: the L2 and DRAM replay sees the pages scattered as the table scatters them. Contiguous order
// with P dividing n_kv gives the unpaged addresses exactly.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sim/core/paging.h"
#include "sim/core/problem.h"
#include "sim/core/transfer.h"
#include "sim/gpu/tensor_layout.h"
#include "sim/schedule/kernel.h"

namespace iosim {

/// A run of consecutive sectors of one line.
struct LineAccess {
  std::uint64_t line = 0;
  std::uint32_t mask = 0;
  friend bool operator==(const LineAccess&, const LineAccess&) = default;
};

/// Where a tile lies: `rows` ranges of `width` bytes, `stride` bytes apart, from `start`; one range
/// of rows × width bytes when width == stride.
struct TileBytes {
  std::uint64_t start = 0;
  std::uint64_t width = 0;
  std::uint64_t stride = 0;
  std::uint64_t rows = 0;
  [[nodiscard]] bool contiguous() const { return width == stride || rows == 1; }
  friend bool operator==(const TileBytes&, const TileBytes&) = default;
};

class AddressMap {
 public:
  static constexpr std::uint64_t kAlignment = std::uint64_t{2} << 20;
  static constexpr std::uint64_t kMaxSlices = 128;  ///< split-KV partial copies laid out

  /// `line_bytes` and `sector_bytes` are powers of two (as on every GPU), so that addresses split into
  /// lines and sectors by shifts on the model's hot path.
  AddressMap(const Problem& p, std::uint32_t line_bytes, std::uint32_t sector_bytes);

  /// Appends to `out` the line accesses of `tile`, read by a block of grid head `head` of a kernel
  /// whose heads index the tensor as `map` says. Rows of a tile as wide as the tensor are one range.
  /// What `out` already holds is left alone: a tile's accesses never merge into an earlier one.
  void lines(const TileRef& tile, std::uint64_t head, HeadMap map, std::vector<LineAccess>& out) const;

  /// The bytes `tile` covers, as lines() sees them.
  [[nodiscard]] TileBytes bytes(const TileRef& tile, std::uint64_t head, HeadMap map) const;

  /// bytes(tile, head, map).start − bytes(tile, 0, map).start, for any tile of `t`: how far a
  /// head's copy of the tensor lies from head 0's.
  [[nodiscard]] std::uint64_t head_offset(Tensor t, std::uint64_t head, HeadMap map) const;

  /// First byte of tensor `t`.
  [[nodiscard]] std::uint64_t base(Tensor t) const { return layout_[index(t)].base(); }

  /// The first byte of row `row` of stored head `head` of tensor `t` (slice 0): through the block
  /// table where `t` is paged.
  [[nodiscard]] std::uint64_t row_address(Tensor t, std::uint64_t head, std::uint64_t row) const;

  /// Whether tensor `t` lies in pages (K and V of a paged problem).
  [[nodiscard]] bool paged(Tensor t) const {
    return p_.paged() && shape_of(t).layout.kind == TensorLayout::Kind::paged;
  }
  [[nodiscard]] const BlockTable& block_table() const { return table_; }

 private:
  /// The head of the tensor that grid head `head` reads, as `map` says.
  [[nodiscard]] std::uint64_t stored_head(std::uint64_t head, HeadMap map) const;
  /// lines() of a tile of a paged tensor: one run of rows a page.
  void paged_lines(const TileRef& tile, std::uint64_t head, std::vector<LineAccess>& out) const;
  /// Appends the lines of [begin, begin + bytes) to `out`, merging into out.back() when it is the same
  /// line and at index `first` or later (the current tile's).
  void add_range(std::uint64_t begin, std::uint64_t bytes, std::size_t first, std::vector<LineAccess>& out) const;

  Problem p_;
  std::uint64_t line_bytes_;
  std::uint32_t line_shift_;    ///< log2 line_bytes_
  std::uint32_t sector_shift_;  ///< log2 of the sector's bytes
  std::array<ContiguousLayout, kTensorCount> layout_{};  ///< each tensor's, from the tensor table
  BlockTable table_;  ///< the pages' slots of a paged problem
};

}  // namespace iosim
