// flash1 backward executed: Algorithm 4 of the FlashAttention paper on numbers, in the order
// sim/schedule/flash1/flash1_bwd.cpp emits it. P is recomputed from Q, K and the l, m the forward left.
//
//   for each Q tile i:      store dQ_i = 0                                   (init kernels)
//   for each K/V tile j:    store dK_j = 0, dV_j = 0
//   for each K/V tile j:    load K_j, V_j;  dK̃ = dṼ = 0 on chip
//     for each Q tile i:    load Q_i, O_i, dO_i, dQ_i, l_i, m_i
//       S = τ·Q_i K_jᵀ;  P = diag(l_i)⁻¹ e^{S − m_i};  dṼ += Pᵀ dO_i;  dP = dO_i V_jᵀ
//       D_i = rowsum(dO_i ∘ O_i);  dS = P ∘ (dP − D_i);  dQ_i += τ·dS K_j;  store dQ_i
//       dK̃ += τ·dSᵀ Q_i
//     store dK_j ← dK̃, dV_j ← dṼ
// A bugged forward reaches the gradients through O (hence D) and through l and m.
#include "sim/exec/executors.h"
#include "sim/exec/online_softmax.h"

namespace iosim::exec {

template <class T>
void flash1_backward(Hbm<T>& hbm, const ExecShape& s) {
  const Eigen::Index d = idx(s.d);
  const T tau = score_scale<T>(s.d);
  for_spans(s.rows(), Walk::each, [&](const Span& i) { hbm.store(Tensor::dQ, i, Matrix<T>::Zero(idx(i.size), d)); });
  for_spans(s.cols(), Walk::each, [&](const Span& j) {
    hbm.store(Tensor::dK, j, Matrix<T>::Zero(idx(j.size), d));
    hbm.store(Tensor::dV, j, Matrix<T>::Zero(idx(j.size), d));
  });
  for_spans(s.cols(), Walk::each, [&](const Span& j) {
    const Matrix<T> k = hbm.load(Tensor::K, j);
    const Matrix<T> v = hbm.load(Tensor::V, j);
    Matrix<T> dk = Matrix<T>::Zero(idx(j.size), d);
    Matrix<T> dv = Matrix<T>::Zero(idx(j.size), d);
    for_spans(s.rows(), Walk::each, [&](const Span& i) {
      const Matrix<T> q = hbm.load(Tensor::Q, i);
      const Matrix<T> o = hbm.load(Tensor::O, i);
      const Matrix<T> dout = hbm.load(Tensor::dO, i);
      Matrix<T> dq = hbm.load(Tensor::dQ, i);
      const Vector<T> l = hbm.load_stat(Tensor::l, i);
      const Vector<T> m = hbm.load_stat(Tensor::m, i);
      const Matrix<T> p = l.cwiseInverse().asDiagonal() * exp_shifted(scores(q, k, tau), m);
      dv.noalias() += p.transpose() * dout;
      const Matrix<T> dp = dout * v.transpose();
      const Vector<T> d_row = dout.cwiseProduct(o).rowwise().sum();
      const Matrix<T> ds = p.cwiseProduct(dp.colwise() - d_row);
      dq.noalias() += tau * (ds * k);
      hbm.store(Tensor::dQ, i, dq);
      dk.noalias() += tau * (ds.transpose() * q);
    });
    hbm.store(Tensor::dK, j, dk);
    hbm.store(Tensor::dV, j, dv);
  });
}

template void flash1_backward<float>(Hbm<float>&, const ExecShape&);
template void flash1_backward<double>(Hbm<double>&, const ExecShape&);

}  // namespace iosim::exec
