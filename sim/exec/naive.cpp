// naive executed, forward and backward: standard attention on whole tensors, in the order
// sim/schedule/naive/naive_fwd.cpp and naive_bwd.cpp emit it.
//
//   forward:   load Q, K; store S = τ·Q Kᵀ
//              load S (twice when a row does not fit: max and sum, then normalise); store P = softmax(S)
//              load P, V; store O = P V
//   backward:  load P, dO; store dV = Pᵀ dO           load dO, V; store dP = dO Vᵀ
//              load P, dP (twice: row sums, then dS); store dS = P ∘ (dP − rowsum(P ∘ dP))
//              load dS, K; store dQ = τ·dS K          load dS, Q; store dK = τ·dSᵀ Q
#include "sim/exec/executor.h"
#include "sim/exec/executors.h"
#include "sim/exec/online_softmax.h"

namespace iosim::exec {

template <class T>
void naive_forward(Hbm<T>& hbm, const ExecShape& s) {
  const T tau = score_scale<T>(s.d);
  {
    const Matrix<T> q = hbm.load_all(Tensor::Q);
    const Matrix<T> k = hbm.load_all(Tensor::K);
    hbm.store_all(Tensor::S, scores(q, k, tau));
  }
  Vector<T> mx, sum;
  Matrix<T> p;
  if (s.passes > 1) {  // first pass: the row max and sum only
    const Matrix<T> sc = hbm.load_all(Tensor::S);
    mx = sc.rowwise().maxCoeff();
    sum = exp_shifted(sc, mx).rowwise().sum();
    p = exp_shifted(Matrix<T>(hbm.load_all(Tensor::S)), mx);
  } else {
    const Matrix<T> sc = hbm.load_all(Tensor::S);
    mx = sc.rowwise().maxCoeff();
    p = exp_shifted(sc, mx);
    sum = p.rowwise().sum();
  }
  hbm.store_all(Tensor::P, sum.cwiseInverse().asDiagonal() * p);
  const Matrix<T> pl = hbm.load_all(Tensor::P);
  const Matrix<T> v = hbm.load_all(Tensor::V);
  hbm.store_all(Tensor::O, pl * v);
}

template <class T>
void naive_backward(Hbm<T>& hbm, const ExecShape& s) {
  const T tau = score_scale<T>(s.d);
  {
    const Matrix<T> p = hbm.load_all(Tensor::P);
    const Matrix<T> dout = hbm.load_all(Tensor::dO);
    hbm.store_all(Tensor::dV, p.transpose() * dout);
  }
  {
    const Matrix<T> dout = hbm.load_all(Tensor::dO);
    const Matrix<T> v = hbm.load_all(Tensor::V);
    hbm.store_all(Tensor::dP, dout * v.transpose());
  }
  {
    Matrix<T> p = hbm.load_all(Tensor::P);
    Matrix<T> dp = hbm.load_all(Tensor::dP);
    const Vector<T> d_row = p.cwiseProduct(dp).rowwise().sum();
    if (s.passes > 1) {  // second pass: P and dP read again for dS
      p = hbm.load_all(Tensor::P);
      dp = hbm.load_all(Tensor::dP);
    }
    hbm.store_all(Tensor::dS, p.cwiseProduct(dp.colwise() - d_row));
  }
  {
    const Matrix<T> ds = hbm.load_all(Tensor::dS);
    const Matrix<T> k = hbm.load_all(Tensor::K);
    hbm.store_all(Tensor::dQ, tau * (ds * k));
  }
  const Matrix<T> ds = hbm.load_all(Tensor::dS);
  const Matrix<T> q = hbm.load_all(Tensor::Q);
  hbm.store_all(Tensor::dK, tau * (ds.transpose() * q));
}

template void naive_forward<float>(Hbm<float>&, const ExecShape&);
template void naive_forward<double>(Hbm<double>&, const ExecShape&);
template void naive_backward<float>(Hbm<float>&, const ExecShape&);
template void naive_backward<double>(Hbm<double>&, const ExecShape&);

namespace {

template <class T>
ForwardStats naive_forward_stats(Hbm<T>& hbm, const ExecShape& s, Bug /*no online softmax to break*/) {
  naive_forward(hbm, s);
  return {};
}

}  // namespace

const Executor kNaiveExecutor{&naive_forward_stats<float>, &naive_forward_stats<double>, &naive_backward<float>,
                              &naive_backward<double>, /*online_softmax=*/false, /*scores_in_hbm=*/true};

}  // namespace iosim::exec
