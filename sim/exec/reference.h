// Attention of one head computed plainly in double: what executions are compared against.
//
//   forward:  S = τ·Q Kᵀ; P = softmax(S) by rows (max subtracted); O = P V;  τ = 1/√d
//   backward: dV = Pᵀ dO; dP = dO Vᵀ; D = rowsum(P ∘ dP); dS = P ∘ (dP − D); dQ = τ·dS K; dK = τ·dSᵀ Q
#pragma once

#include "sim/exec/inputs.h"
#include "sim/exec/matrix.h"

namespace iosim::exec {

struct Gradients {
  MatrixD dq;
  MatrixD dk;
  MatrixD dv;
};

[[nodiscard]] MatrixD reference_forward(const Inputs& in);
[[nodiscard]] Gradients reference_backward(const Inputs& in);

}  // namespace iosim::exec
