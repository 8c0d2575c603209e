// flash1 forward executed: Algorithm 1 of the FlashAttention paper on numbers, in the order
// sim/schedule/flash1/flash1_fwd.cpp emits it.
//
//   for each Q tile i:             store O_i = 0, l_i = 0, m_i = −∞            (the init kernel)
//   for each K/V tile j:           load K_j, V_j
//     for each Q tile i:           load Q_i, O_i, l_i, m_i
//       S = τ·Q_i K_jᵀ;  m̃ = rowmax(S);  P̃ = e^{S − m̃};  l̃ = rowsum(P̃)
//       m_new = max(m_i, m̃);  l_new = e^{m_i − m_new}·l_i + e^{m̃ − m_new}·l̃
//       O_i ← diag(l_new)⁻¹ (diag(l_i)·e^{m_i − m_new}·O_i + e^{m̃ − m_new}·P̃ V_j)
//       store O_i, l_i ← l_new, m_i ← m_new
// Bugs: no-rescale drops e^{m_i − m_new} from the O_i term; no-max takes m̃ = 0 (P̃ = e^S); wrong-l
// takes l_new = l_i + l̃.
#include "sim/exec/executor.h"
#include "sim/exec/executors.h"
#include "sim/exec/online_softmax.h"

namespace iosim::exec {

template <class T>
ForwardStats flash1_forward(Hbm<T>& hbm, const ExecShape& s, Bug bug) {
  const Eigen::Index d = idx(s.d);
  const T tau = score_scale<T>(s.d);
  for_spans(s.rows(), Walk::each, [&](const Span& i) {
    hbm.store(Tensor::O, i, Matrix<T>::Zero(idx(i.size), d));
    hbm.store_stat(Tensor::l, i, Vector<T>::Zero(idx(i.size)));
    hbm.store_stat(Tensor::m, i, minus_infinity<T>(idx(i.size)));
  });
  ForwardStats stats;
  for_spans(s.cols(), Walk::each, [&](const Span& j) {
    const Matrix<T> k = hbm.load(Tensor::K, j);
    const Matrix<T> v = hbm.load(Tensor::V, j);
    for_spans(s.rows(), Walk::each, [&](const Span& i) {
      const Matrix<T> q = hbm.load(Tensor::Q, i);
      const Matrix<T> o = hbm.load(Tensor::O, i);
      const Vector<T> l = hbm.load_stat(Tensor::l, i);
      const Vector<T> m = hbm.load_stat(Tensor::m, i);
      const Matrix<T> sc = scores(q, k, tau);
      const Vector<T> m_tile = bug == Bug::no_max ? Vector<T>::Zero(sc.rows()) : Vector<T>(sc.rowwise().maxCoeff());
      const Matrix<T> p = exp_shifted(sc, m_tile);
      const Vector<T> l_tile = p.rowwise().sum();
      const Vector<T> m_new = m.cwiseMax(m_tile);
      const Vector<T> alpha = rescale_factor(m, m_new);
      const Vector<T> beta = rescale_factor(m_tile, m_new);
      stats.max_grew += max_growths(m, m_new);
      const Vector<T> l_new = bug == Bug::wrong_l ? Vector<T>(l + l_tile)
                                                  : Vector<T>(alpha.cwiseProduct(l) + beta.cwiseProduct(l_tile));
      const Vector<T> keep = bug == Bug::no_rescale ? l : Vector<T>(alpha.cwiseProduct(l));
      const Matrix<T> pv = p * v;
      const Matrix<T> o_new = l_new.cwiseInverse().asDiagonal() * (keep.asDiagonal() * o + beta.asDiagonal() * pv);
      hbm.store(Tensor::O, i, o_new);
      hbm.store_stat(Tensor::l, i, l_new);
      hbm.store_stat(Tensor::m, i, m_new);
    });
  });
  return stats;
}

template ForwardStats flash1_forward<float>(Hbm<float>&, const ExecShape&, Bug);
template ForwardStats flash1_forward<double>(Hbm<double>&, const ExecShape&, Bug);

const Executor kFlash1Executor{&flash1_forward<float>, &flash1_forward<double>, &flash1_backward<float>,
                               &flash1_backward<double>, /*online_softmax=*/true, /*scores_in_hbm=*/false};

}  // namespace iosim::exec
