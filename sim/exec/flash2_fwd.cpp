// flash2 forward executed: FlashAttention-2's forward on numbers, in the order
// sim/schedule/flash2/flash2_fwd.cpp emits it (one thread block per Q tile, run one after the other).
//
//   for each Q tile i:        load Q_i;  O = 0, l = 0, m = −∞ on chip
//     for each K/V tile j:    load K_j, V_j
//       S = τ·Q_i K_jᵀ;  m_new = max(m, rowmax(S));  P̃ = e^{S − m_new}
//       l ← e^{m − m_new}·l + rowsum(P̃);  O ← diag(e^{m − m_new})·O + P̃ V_j;  m ← m_new
//     O_i = diag(l)⁻¹ O;  L_i = m + log l;   store O_i, L_i
// Bugs: no-rescale drops diag(e^{m − m_new}) from O; no-max takes m_new = 0 (P̃ = e^S); wrong-l takes
// l ← l + rowsum(P̃). With P̃ already shifted by m_new, both of flash2's bugs are harmless as long as
// the running max does not grow; flash1's wrong-l is not (its l̃ is shifted by the tile's own max).
#include <cmath>

#include "sim/exec/executor.h"
#include "sim/exec/executors.h"
#include "sim/exec/online_softmax.h"

namespace iosim::exec {

template <class T>
ForwardStats flash2_forward(Hbm<T>& hbm, const ExecShape& s, Bug bug) {
  const Eigen::Index d = idx(s.d);
  const T tau = score_scale<T>(s.d);
  ForwardStats stats;
  for_spans(s.rows(), Walk::each, [&](const Span& i) {
    const Eigen::Index r = idx(i.size);
    const Matrix<T> q = hbm.load(Tensor::Q, i);
    Matrix<T> o = Matrix<T>::Zero(r, d);
    Vector<T> l = Vector<T>::Zero(r);
    Vector<T> m = minus_infinity<T>(r);
    for_spans(s.cols(), Walk::each, [&](const Span& j) {
      const Matrix<T> k = hbm.load(Tensor::K, j);
      const Matrix<T> v = hbm.load(Tensor::V, j);
      const Matrix<T> sc = scores(q, k, tau);
      const Vector<T> m_new = bug == Bug::no_max ? Vector<T>::Zero(r) : Vector<T>(m.cwiseMax(sc.rowwise().maxCoeff()));
      const Matrix<T> p = exp_shifted(sc, m_new);
      const Vector<T> alpha = rescale_factor(m, m_new);
      stats.max_grew += max_growths(m, m_new);
      l = (bug == Bug::wrong_l ? l : Vector<T>(alpha.cwiseProduct(l))) + p.rowwise().sum();
      if (bug != Bug::no_rescale) o = alpha.asDiagonal() * o;
      o.noalias() += p * v;
      m = m_new;
    });
    hbm.store(Tensor::O, i, l.cwiseInverse().asDiagonal() * o);
    hbm.store_stat(Tensor::L, i, m + l.array().log().matrix());
  });
  return stats;
}

template ForwardStats flash2_forward<float>(Hbm<float>&, const ExecShape&, Bug);
template ForwardStats flash2_forward<double>(Hbm<double>&, const ExecShape&, Bug);

const Executor kFlash2Executor{&flash2_forward<float>, &flash2_forward<double>, &flash2_backward<float>,
                               &flash2_backward<double>, /*online_softmax=*/true, /*scores_in_hbm=*/false};

}  // namespace iosim::exec
