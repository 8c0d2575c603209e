// The pieces of the online softmax that flash1 and flash2 share: the score scale, exponentials of
// scores shifted by a row statistic, and the rescale factor e^{m_old − m_new} with the count of the
// times it is below 1 (the running max grew).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "sim/exec/matrix.h"

namespace iosim::exec {

/// τ = 1/√d in the working precision.
template <class T>
[[nodiscard]] T score_scale(std::uint64_t d) {
  return T(1) / std::sqrt(static_cast<T>(d));
}

/// S = τ·Q Kᵀ for a Q tile and a K tile.
template <class T>
[[nodiscard]] Matrix<T> scores(const Matrix<T>& q, const Matrix<T>& k, T tau) {
  Matrix<T> s = q * k.transpose();
  s *= tau;
  return s;
}

/// e^{S − shift}, the shift taken per row.
template <class T>
[[nodiscard]] Matrix<T> exp_shifted(const Matrix<T>& s, const Vector<T>& shift) {
  return (s.colwise() - shift).array().exp().matrix();
}

/// e^{m_old − m_new} per row; exactly 0 where m_old = −∞ (nothing accumulated yet).
template <class T>
[[nodiscard]] Vector<T> rescale_factor(const Vector<T>& m_old, const Vector<T>& m_new) {
  Vector<T> f(m_old.size());
  for (Eigen::Index r = 0; r < f.size(); ++r) {
    f(r) = m_old(r) == -std::numeric_limits<T>::infinity() ? T(0) : std::exp(m_old(r) - m_new(r));
  }
  return f;
}

/// Rows whose finite running max grew from m_old to m_new.
template <class T>
[[nodiscard]] std::uint64_t max_growths(const Vector<T>& m_old, const Vector<T>& m_new) {
  std::uint64_t grew = 0;
  for (Eigen::Index r = 0; r < m_old.size(); ++r) {
    grew += std::isfinite(m_old(r)) && m_new(r) > m_old(r) ? 1u : 0u;
  }
  return grew;
}

/// m = −∞ for `rows` rows.
template <class T>
[[nodiscard]] Vector<T> minus_infinity(Eigen::Index rows) {
  return Vector<T>::Constant(rows, -std::numeric_limits<T>::infinity());
}

}  // namespace iosim::exec
