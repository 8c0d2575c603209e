// FLOP conventions for the non-matmul work of each schedule. Matrix products count 2·m·n·k
// (Emitter::matmul). Everything else counts one FLOP per elementary operation (add, multiply,
// compare, exp, divide) on one element; docs/counting.md derives each constant.
#pragma once

#include <cstdint>

namespace iosim::flops {

/// Per score element: scale by 1/√d, row max, subtract the max, exp, row sum.
inline constexpr std::uint64_t kSoftmaxPerScore = 5;
/// Standard softmax also divides every probability by its row sum.
inline constexpr std::uint64_t kNaiveSoftmaxPerScore = kSoftmaxPerScore + 1;
/// A tile the causal diagonal crosses: one select per score (masked scores become −∞).
inline constexpr std::uint64_t kMaskPerScore = 1;

// FlashAttention (Algorithm 1), per Q row and K/V tile:
/// m_new = max(m_i, m̃_ij) (1); l_new = e^(m_i−m_new)·l_i + e^(m̃_ij−m_new)·l̃_ij (2 sub, 2 exp, 2 mul, 1 add).
inline constexpr std::uint64_t kFlash1PerRowStep = 8;
/// O_i ← diag(l_new)⁻¹(diag(l_i)·e^(m_i−m_new)·O_i + e^(m̃_ij−m_new)·P̃_ij·V_j): 3 multiplies, 1 add.
inline constexpr std::uint64_t kFlash1PerOutputStep = 4;

// FlashAttention-2, per Q row and K/V tile:
/// m_new = max(m, rowmax) (1); α = e^(m−m_new) (2); l ← α·l + rowsum (2).
inline constexpr std::uint64_t kFlash2PerRowStep = 5;
/// O ← α·O (the P·V product accumulates into O inside the matmul).
inline constexpr std::uint64_t kFlash2PerOutputStep = 1;
/// End of the K/V loop: O ← O / l per output element; L = m + log l per row (2).
inline constexpr std::uint64_t kFlash2PerOutputFinal = 1;
inline constexpr std::uint64_t kFlash2PerRowFinal = 2;

// Backward passes.
/// Standard backward, dS = P ∘ (dP − rowsum(P ∘ dP)): multiply, sum, subtract, multiply.
inline constexpr std::uint64_t kNaiveSoftmaxBwdPerScore = 4;
/// Scaling a gradient by 1/√d (dQ, dK): one multiply per element.
inline constexpr std::uint64_t kScalePerElement = 1;
/// Algorithm 4 recomputes P = diag(l)⁻¹·exp(τ·S − m): scale, subtract, exp, divide.
inline constexpr std::uint64_t kFlash1RecomputePerScore = 4;
/// FlashAttention-2 recomputes P = exp(τ·S − L): scale, subtract, exp.
inline constexpr std::uint64_t kFlash2RecomputePerScore = 3;
/// dS = P ∘ (dP − D): subtract, multiply.
inline constexpr std::uint64_t kDsPerScore = 2;
/// D = rowsum(dO ∘ O): multiply, add per element of a row of O.
inline constexpr std::uint64_t kRowDotPerElement = 2;

// Split-KV decoding, the combine pass: per split and row, the weight e^(L_s − L) (2) and its
// accumulation into the sum (1); per split and output element, a multiply-add (2).
inline constexpr std::uint64_t kCombinePerSplitRow = 3;
inline constexpr std::uint64_t kCombinePerSplitOutput = 2;

}  // namespace iosim::flops
