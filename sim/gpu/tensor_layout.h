// Where one tensor's elements lie in device memory, built from its row of the tensor table
// (sim/core/tensor.h: rows, cols, heads, type, layout). Contiguous today: row-major
// [stored heads, rows, cols] from `base`, one such copy per split-KV slice; a paged layout (a block
// table over fixed-size pages) would be another kind beside it, chosen by TensorLayout::kind.
#pragma once

#include <cstdint>

#include "sim/core/problem.h"
#include "sim/core/units.h"

namespace iosim {

class ContiguousLayout {
 public:
  ContiguousLayout() = default;
  /// Tensor `t` of problem `p` at byte `base`, with `slices` copies when its layout is split.
  ContiguousLayout(Tensor t, const Problem& p, std::uint64_t base, std::uint64_t slices)
      : base_(base),
        rows_(extent(p, shape_of(t).rows)),
        cols_(extent(p, shape_of(t).cols)),
        elem_(size_bytes(storage_type(t, p.dtype))),
        slice_bytes_(checked_mul(checked_mul(checked_mul(stored_heads(p, shape_of(t).layout.stored_heads), rows_),
                                             cols_),
                                 elem_)),
        slices_(shape_of(t).layout.split ? slices : 1) {}

  [[nodiscard]] std::uint64_t base() const { return base_; }
  [[nodiscard]] std::uint64_t cols() const { return cols_; }
  [[nodiscard]] std::uint64_t element_bytes() const { return elem_; }
  [[nodiscard]] std::uint64_t row_bytes() const { return cols_ * elem_; }
  /// One stored head's bytes: how far head h + 1's rows lie from head h's.
  [[nodiscard]] std::uint64_t head_bytes() const { return rows_ * row_bytes(); }
  /// Every slice's bytes.
  [[nodiscard]] std::uint64_t bytes() const { return checked_mul(slice_bytes_, slices_); }
  /// The first byte of row `row` of stored head `head` in slice `slice`.
  [[nodiscard]] std::uint64_t row_start(std::uint64_t slice, std::uint64_t head, std::uint64_t row) const {
    return base_ + slice * slice_bytes_ + (head * rows_ + row) * row_bytes();
  }

 private:
  std::uint64_t base_ = 0;
  std::uint64_t rows_ = 0;  ///< per head
  std::uint64_t cols_ = 0;
  std::uint64_t elem_ = 0;  ///< bytes
  std::uint64_t slice_bytes_ = 0;
  std::uint64_t slices_ = 1;
};

}  // namespace iosim
