// The tensors an attention schedule moves, and the type each is stored in.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "sim/core/dtype.h"

namespace iosim {

enum class Tensor : std::uint8_t {
  Q, K, V, O,    // inputs and output
  S, P,          // scores and probabilities (n × n_kv, only naive keeps them in HBM)
  l, m,          // running row sum and row max (flash1)
  L,             // row logsumexp (flash2, split-KV)
  dO, dQ, dK, dV,
  dS, dP,        // gradients of S and P (naive backward keeps them in HBM)
  D,             // rowsum(dO ∘ O), precomputed by flash2's backward
  dQacc,         // fp32 accumulator of dQ (flash2 backward, atomics)
  Opart, Lpart,  // split-KV partial outputs and their logsumexp (flash-decoding)
};

inline constexpr std::size_t kTensorCount = static_cast<std::size_t>(Tensor::Lpart) + 1;

inline constexpr std::array<Tensor, kTensorCount> kAllTensors = {
    Tensor::Q,  Tensor::K,  Tensor::V,  Tensor::O,  Tensor::S,  Tensor::P,     Tensor::l,
    Tensor::m,  Tensor::L,  Tensor::dO, Tensor::dQ, Tensor::dK, Tensor::dV,    Tensor::dS,
    Tensor::dP, Tensor::D,  Tensor::dQacc, Tensor::Opart, Tensor::Lpart};

[[nodiscard]] constexpr std::size_t index(Tensor t) { return static_cast<std::size_t>(t); }

[[nodiscard]] constexpr std::string_view name(Tensor t) {
  constexpr std::array<std::string_view, kTensorCount> names = {
      "Q", "K", "V", "O", "S", "P", "l", "m", "L", "dO", "dQ", "dK", "dV", "dS", "dP", "D", "dQacc",
      "Opart", "Lpart"};
  return names[index(t)];
}

/// Statistics and accumulators are fp32 in every real implementation; the rest use the problem's type.
[[nodiscard]] constexpr DType storage_type(Tensor t, DType element) {
  switch (t) {
    case Tensor::l:
    case Tensor::m:
    case Tensor::L:
    case Tensor::D:
    case Tensor::dQacc:
    case Tensor::Opart:
    case Tensor::Lpart: return DType::fp32;
    default: return element;
  }
}

}  // namespace iosim
