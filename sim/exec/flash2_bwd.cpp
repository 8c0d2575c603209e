// flash2 backward executed: FlashAttention-2's backward on numbers, in the order
// sim/schedule/flash2/flash2_bwd.cpp emits it (its three kernels, each block after the other).
//
//   1. for each Q tile i:     load O_i, dO_i;  store D_i = rowsum(dO_i ∘ O_i);  store dQacc_i = 0
//   2. for each K/V tile j:   load K_j, V_j;  dK̃ = dṼ = 0 on chip
//        for each Q tile i:   load Q_i, dO_i, L_i, D_i
//          S = τ·Q_i K_jᵀ;  P = e^{S − L_i};  dṼ += Pᵀ dO_i;  dP = dO_i V_jᵀ;  dS = P ∘ (dP − D_i)
//          dQacc_i += dS K_j  (an atomic add);  dK̃ += dSᵀ Q_i
//        store dK_j = τ·dK̃, dV_j = dṼ
//   3. for each Q tile i:     load dQacc_i;  store dQ_i = τ·dQacc_i
// The accumulator dQacc is kept in the working precision (fp32 on a GPU). A bugged forward reaches
// the gradients through O (hence D) and through L.
#include "sim/exec/executors.h"
#include "sim/exec/online_softmax.h"

namespace iosim::exec {

template <class T>
void flash2_backward(Hbm<T>& hbm, const ExecShape& s) {
  const Eigen::Index d = idx(s.d);
  const T tau = score_scale<T>(s.d);
  for_spans(s.rows(), Walk::each, [&](const Span& i) {
    const Matrix<T> o = hbm.load(Tensor::O, i);
    const Matrix<T> dout = hbm.load(Tensor::dO, i);
    hbm.store_stat(Tensor::D, i, dout.cwiseProduct(o).rowwise().sum());
    hbm.store(Tensor::dQacc, i, Matrix<T>::Zero(idx(i.size), d));
  });
  for_spans(s.cols(), Walk::each, [&](const Span& j) {
    const Matrix<T> k = hbm.load(Tensor::K, j);
    const Matrix<T> v = hbm.load(Tensor::V, j);
    Matrix<T> dk = Matrix<T>::Zero(idx(j.size), d);
    Matrix<T> dv = Matrix<T>::Zero(idx(j.size), d);
    for_spans(s.rows(), Walk::each, [&](const Span& i) {
      const Matrix<T> q = hbm.load(Tensor::Q, i);
      const Matrix<T> dout = hbm.load(Tensor::dO, i);
      const Vector<T> lse = hbm.load_stat(Tensor::L, i);
      const Vector<T> d_row = hbm.load_stat(Tensor::D, i);
      const Matrix<T> p = exp_shifted(scores(q, k, tau), lse);
      dv.noalias() += p.transpose() * dout;
      const Matrix<T> dp = dout * v.transpose();
      const Matrix<T> ds = p.cwiseProduct(dp.colwise() - d_row);
      hbm.reduce(Tensor::dQacc, i, ds * k);
      dk.noalias() += ds.transpose() * q;
    });
    hbm.store(Tensor::dK, j, tau * dk);
    hbm.store(Tensor::dV, j, dv);
  });
  for_spans(s.rows(), Walk::each, [&](const Span& i) { hbm.store(Tensor::dQ, i, tau * hbm.load(Tensor::dQacc, i)); });
}

template void flash2_backward<float>(Hbm<float>&, const ExecShape&);
template void flash2_backward<double>(Hbm<double>&, const ExecShape&);

}  // namespace iosim::exec
