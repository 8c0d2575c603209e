// The CPU reference of the kernels: attention forward and backward in double precision (Eigen), per
// head, on row-major [rows × d] matrices. Used by check_accuracy (cuda/kernels/accuracy.cpp).
//
//   forward:  S = scale·Q Kᵀ (causal: −inf where key c > row r + n_kv − n, or with a window W where
//             c ≤ r + n_kv − n − W); P = softmax(S) by rows
//             (a row with no visible key: P = 0); O = P V
//   backward: dV = Pᵀ dO; dP = dO Vᵀ; D = rowsum(P ∘ dP); dS = P ∘ (dP − D); dQ = scale·dS K; dK = scale·dSᵀ Q
// Cost per head: about 4·n·n_kv·d (forward) and 10·n·n_kv·d (backward) flops in double: keep n small.
#pragma once

#include <cstdint>
#include <vector>

namespace iosim::gpu::reference {

/// The problem: `heads` (batch × heads) query heads of n queries, and heads / group K/V heads of n_kv
/// keys, all of width d; query head h attends with K/V head h / group (grouped-query attention).
struct Shape {
  int heads = 1;
  int n = 0;
  int n_kv = 0;
  int d = 0;
  double scale = 0;  ///< usually 1/√d
  int group = 1;     ///< query heads per K/V head (dividing heads)
  bool causal = false;
  int window = 0;  ///< with causal: key c also needs c > r + n_kv − n − window (sim/core/mask.h); 0: none
};

/// O [heads, n, d] from Q [heads, n, d], K and V [heads / group, n_kv, d].
[[nodiscard]] std::vector<double> attention_forward(const Shape& s, const std::vector<double>& q,
                                                    const std::vector<double>& k, const std::vector<double>& v);

struct Gradients {
  std::vector<double> dq;  ///< [heads, n, d]
  std::vector<double> dk;  ///< [heads / group, n_kv, d], summed over each group
  std::vector<double> dv;  ///< [heads / group, n_kv, d]
};

/// dQ, dK, dV given dO [heads, n, d] (P recomputed exactly from Q, K).
[[nodiscard]] Gradients attention_backward(const Shape& s, const std::vector<double>& q, const std::vector<double>& k,
                                           const std::vector<double>& v, const std::vector<double>& dout);

}  // namespace iosim::gpu::reference
