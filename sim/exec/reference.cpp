// Attention in double, a block of query rows at a time so memory stays at 256 × n_kv (reference.h).
#include "sim/exec/reference.h"

#include <algorithm>
#include <cmath>

namespace iosim::exec {

namespace {

/// Query rows per block of the reference: bounds its memory to kRows × n_kv doubles at a time.
constexpr Eigen::Index kRows = 256;

double tau(const Inputs& in) { return 1.0 / std::sqrt(static_cast<double>(in.q.cols())); }

/// P = softmax(τ·Q Kᵀ) for query rows [r, r + rows).
MatrixD probabilities(const Inputs& in, Eigen::Index r, Eigen::Index rows) {
  MatrixD p = tau(in) * (in.q.middleRows(r, rows) * in.k.transpose());
  const Vector<double> mx = p.rowwise().maxCoeff();
  p = (p.colwise() - mx).array().exp().matrix();
  const Vector<double> sum = p.rowwise().sum();
  return sum.cwiseInverse().asDiagonal() * p;
}

}  // namespace

MatrixD reference_forward(const Inputs& in) {
  MatrixD o(in.q.rows(), in.v.cols());
  for (Eigen::Index r = 0; r < in.q.rows(); r += kRows) {
    const Eigen::Index rows = std::min(kRows, in.q.rows() - r);
    o.middleRows(r, rows) = probabilities(in, r, rows) * in.v;
  }
  return o;
}

Gradients reference_backward(const Inputs& in) {
  const double t = tau(in);
  Gradients g{MatrixD(in.q.rows(), in.q.cols()), MatrixD::Zero(in.k.rows(), in.k.cols()),
              MatrixD::Zero(in.v.rows(), in.v.cols())};
  for (Eigen::Index r = 0; r < in.q.rows(); r += kRows) {
    const Eigen::Index rows = std::min(kRows, in.q.rows() - r);
    const MatrixD p = probabilities(in, r, rows);
    const auto dout = in.dout.middleRows(r, rows);
    const MatrixD dp = dout * in.v.transpose();
    const Vector<double> d = p.cwiseProduct(dp).rowwise().sum();
    const MatrixD ds = p.cwiseProduct(dp.colwise() - d);
    g.dq.middleRows(r, rows) = t * (ds * in.k);
    g.dk += t * (ds.transpose() * in.q.middleRows(r, rows));
    g.dv += p.transpose() * dout;
  }
  return g;
}

}  // namespace iosim::exec
