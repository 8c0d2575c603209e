// The HBM of one head during an execution: every tensor a schedule moves, and the one door tiles go
// through. Each load, store and atomic add is recorded as the Transfer a schedule would emit for it
// (rows_of / stat_of / whole of sim/schedule/tiles.h), so the executed order can be compared with the
// emitted one. A tensor is allocated on its first store, filled with NaN: a read of something never
// written shows in the result.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/tiling.h"
#include "sim/core/transfer.h"
#include "sim/exec/matrix.h"

namespace iosim::exec {

/// The sizes of one head, and the tiles of the schedule executed.
struct ExecShape {
  std::uint64_t n = 0;
  std::uint64_t n_kv = 0;
  std::uint64_t d = 0;
  std::uint64_t br = 1;
  std::uint64_t bc = 1;
  std::uint64_t passes = 1;  ///< naive: passes over a row of S (or of P and dP) when it does not fit

  [[nodiscard]] Tiling rows() const { return {n, br}; }
  [[nodiscard]] Tiling cols() const { return {n_kv, bc}; }
};

template <class T>
class Hbm {
 public:
  explicit Hbm(const ExecShape& s) : shape_(s) {}

  /// Puts `m` in HBM without recording a transfer: the inputs, there before the pass starts.
  void put(Tensor t, Matrix<T> m) { at(t) = std::move(m); }
  [[nodiscard]] const Matrix<T>& get(Tensor t) const { return tensors_[index(t)]; }

  /// Rows `s` of tensor t, all its columns.
  [[nodiscard]] Matrix<T> load(Tensor t, const Span& s) {
    record(t, s, Direction::hbm_to_sram);
    return allocated(t).middleRows(idx(s.begin), idx(s.size));
  }
  /// Rows `s` of a per-row statistic.
  [[nodiscard]] Vector<T> load_stat(Tensor t, const Span& s) { return load(t, s).col(0); }
  /// The whole tensor.
  [[nodiscard]] Matrix<T> load_all(Tensor t) { return load(t, whole(t)); }

  void store(Tensor t, const Span& s, const Matrix<T>& tile) {
    record(t, s, Direction::sram_to_hbm);
    allocated(t).middleRows(idx(s.begin), idx(s.size)) = tile;
  }
  void store_stat(Tensor t, const Span& s, const Vector<T>& v) {
    record(t, s, Direction::sram_to_hbm);
    allocated(t).middleRows(idx(s.begin), idx(s.size)).col(0) = v;
  }
  void store_all(Tensor t, const Matrix<T>& m) { store(t, whole(t), m); }

  /// An atomic add of `tile` into rows `s` (flash2's dQ accumulator).
  void reduce(Tensor t, const Span& s, const Matrix<T>& tile) {
    record(t, s, Direction::reduce);
    allocated(t).middleRows(idx(s.begin), idx(s.size)) += tile;
  }

  [[nodiscard]] const std::vector<Transfer>& transfers() const { return log_; }
  void clear_transfers() { log_.clear(); }

 private:
  /// Rows × columns of tensor t for one head (kTensorShapes); split-KV partials are not executed.
  [[nodiscard]] std::pair<std::uint64_t, std::uint64_t> dims(Tensor t) const {
    const TensorShape& s = shape_of(t);
    if (s.layout.split) throw std::logic_error("Hbm: tensor " + std::string(name(t)) + " is not executed");
    return {extent(s.rows, shape_.n, shape_.n_kv, shape_.d), extent(s.cols, shape_.n, shape_.n_kv, shape_.d)};
  }
  [[nodiscard]] Span whole(Tensor t) const { return Span{0, 1, dims(t).first, 0}; }

  Matrix<T>& at(Tensor t) { return tensors_[index(t)]; }
  Matrix<T>& allocated(Tensor t) {
    Matrix<T>& m = at(t);
    if (m.size() == 0) {
      const auto [rows, cols] = dims(t);
      m = Matrix<T>::Constant(idx(rows), idx(cols), std::numeric_limits<T>::quiet_NaN());
    }
    return m;
  }

  void record(Tensor t, const Span& s, Direction dir) {
    log_.push_back(Transfer{TileRef{t, s.begin, s.size, 0, dims(t).second}, dir, 1});
  }

  ExecShape shape_;
  std::array<Matrix<T>, kTensorCount> tensors_;
  std::vector<Transfer> log_;
};

}  // namespace iosim::exec
