// The matrices executions compute with: Eigen, row-major like the tensors a kernel reads, in the
// working precision T (float or double); and the conversion of sizes into Eigen's signed indices.
#pragma once

#include <Eigen/Dense>

#include <cstdint>

namespace iosim::exec {

template <class T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
/// Per-row statistics of a tile (m, l, L, D).
template <class T>
using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;

using MatrixD = Matrix<double>;

[[nodiscard]] inline Eigen::Index idx(std::uint64_t v) { return static_cast<Eigen::Index>(v); }

}  // namespace iosim::exec
