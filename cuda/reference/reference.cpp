#include "cuda/reference/reference.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cstddef>
#include <stdexcept>

namespace iosim::gpu::reference {

namespace {

using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMap = Eigen::Map<const Matrix>;
using Map = Eigen::Map<Matrix>;

std::size_t head_size(int rows, int d) { return static_cast<std::size_t>(rows) * static_cast<std::size_t>(d); }

void check_sizes(const Shape& s, const std::vector<double>& q, const std::vector<double>& k, const std::vector<double>& v) {
  const auto heads = static_cast<std::size_t>(s.heads);
  if (s.group < 1 || s.heads % s.group != 0) throw std::invalid_argument("reference: group must divide heads");
  const auto kv_heads = heads / static_cast<std::size_t>(s.group);
  if (s.heads < 1 || s.n < 1 || s.n_kv < 1 || s.d < 1 || q.size() != heads * head_size(s.n, s.d) ||
      k.size() != kv_heads * head_size(s.n_kv, s.d) || v.size() != kv_heads * head_size(s.n_kv, s.d)) {
    throw std::invalid_argument("reference: tensor sizes do not match the shape");
  }
}

/// P = softmax(scale·Q Kᵀ) by rows, for one head; causal: only keys c ≤ r + n_kv − n, and with a window
/// W > 0 also c > r + n_kv − n − W; the rest 0 (all of a row that sees none).
Matrix probabilities(const ConstMap& q, const ConstMap& k, double scale, bool causal, int window) {
  Matrix p = scale * (q * k.transpose());
  const Eigen::Index offset = k.rows() - q.rows();
  for (Eigen::Index r = 0; r < p.rows(); ++r) {
    const Eigen::Index seen = causal ? std::clamp<Eigen::Index>(r + offset + 1, 0, p.cols()) : p.cols();
    const Eigen::Index first = causal && window > 0 ? std::clamp<Eigen::Index>(r + offset - window + 1, 0, seen) : 0;
    p.row(r).tail(p.cols() - seen).setZero();
    p.row(r).head(first).setZero();
    if (seen == first) continue;
    auto row = p.row(r).segment(first, seen - first);
    const double mx = row.maxCoeff();
    row = (row.array() - mx).exp();
    row /= row.sum();
  }
  return p;
}

/// Offset of K/V head h / group.
std::size_t kv_offset(const Shape& s, int h) { return static_cast<std::size_t>(h / s.group) * head_size(s.n_kv, s.d); }

}  // namespace

std::vector<double> attention_forward(const Shape& s, const std::vector<double>& q, const std::vector<double>& k,
                                      const std::vector<double>& v) {
  check_sizes(s, q, k, v);
  const Eigen::Index n = s.n, nkv = s.n_kv, d = s.d;
  std::vector<double> o(q.size());
  for (int h = 0; h < s.heads; ++h) {
    const std::size_t qo = static_cast<std::size_t>(h) * head_size(s.n, s.d);
    const std::size_t ko = kv_offset(s, h);
    const ConstMap qh(q.data() + qo, n, d), kh(k.data() + ko, nkv, d), vh(v.data() + ko, nkv, d);
    Map(o.data() + qo, n, d) = probabilities(qh, kh, s.scale, s.causal, s.window) * vh;
  }
  return o;
}

Gradients attention_backward(const Shape& s, const std::vector<double>& q, const std::vector<double>& k,
                             const std::vector<double>& v, const std::vector<double>& dout) {
  check_sizes(s, q, k, v);
  if (dout.size() != q.size()) throw std::invalid_argument("reference: dO does not match Q");
  const Eigen::Index n = s.n, nkv = s.n_kv, d = s.d;
  Gradients g{std::vector<double>(q.size()), std::vector<double>(k.size()), std::vector<double>(v.size())};
  for (int h = 0; h < s.heads; ++h) {
    const std::size_t qo = static_cast<std::size_t>(h) * head_size(s.n, s.d);
    const std::size_t ko = kv_offset(s, h);
    const ConstMap qh(q.data() + qo, n, d), kh(k.data() + ko, nkv, d), vh(v.data() + ko, nkv, d);
    const ConstMap doh(dout.data() + qo, n, d);
    const Matrix p = probabilities(qh, kh, s.scale, s.causal, s.window);
    const Matrix dp = doh * vh.transpose();
    const Eigen::VectorXd rows = (p.array() * dp.array()).rowwise().sum();
    const Matrix ds = (p.array() * (dp.colwise() - rows).array()).matrix();
    Map(g.dv.data() + ko, nkv, d) += p.transpose() * doh;  // summed over the group's query heads
    Map(g.dq.data() + qo, n, d) = s.scale * (ds * kh);
    Map(g.dk.data() + ko, nkv, d) += s.scale * (ds.transpose() * qh);
  }
  return g;
}

}  // namespace iosim::gpu::reference
