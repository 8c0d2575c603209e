// FLOP conventions for the non-matmul work of each schedule. Matrix products count 2·m·n·k
// (Emitter::matmul). Everything else counts one FLOP per elementary operation on one element, as
// vector work (add, multiply, compare, divide: Emitter::vector) or special-function work (exp, log:
// Emitter::special, counted apart because the special-function units run at a fraction of the FMA
// rate). docs/counting.md derives each constant.
#pragma once

#include <cstdint>

namespace iosim::flops {

/// Per score element: scale by 1/√d, row max, subtract the max, row sum (vector) and exp (special).
inline constexpr std::uint64_t kSoftmaxPerScore = 4;
inline constexpr std::uint64_t kExpPerScore = 1;
/// Standard softmax also divides every probability by its row sum.
inline constexpr std::uint64_t kNaiveSoftmaxPerScore = kSoftmaxPerScore + 1;
/// A tile the causal diagonal crosses: one select per score (masked scores become −∞).
inline constexpr std::uint64_t kMaskPerScore = 1;

// FlashAttention (Algorithm 1), per Q row and K/V tile:
/// m_new = max(m_i, m̃_ij) (1); l_new = e^(m_i−m_new)·l_i + e^(m̃_ij−m_new)·l̃_ij (2 sub, 2 mul, 1 add; 2 exp).
inline constexpr std::uint64_t kFlash1PerRowStep = 6;
inline constexpr std::uint64_t kFlash1ExpPerRowStep = 2;
/// O_i ← diag(l_new)⁻¹(diag(l_i)·e^(m_i−m_new)·O_i + e^(m̃_ij−m_new)·P̃_ij·V_j): 3 multiplies, 1 add.
inline constexpr std::uint64_t kFlash1PerOutputStep = 4;

// FlashAttention-2, per Q row and K/V tile:
/// m_new = max(m, rowmax) (1); α = e^(m−m_new) (1 sub; 1 exp); l ← α·l + rowsum (2).
inline constexpr std::uint64_t kFlash2PerRowStep = 4;
inline constexpr std::uint64_t kFlash2ExpPerRowStep = 1;
/// O ← α·O (the P·V product accumulates into O inside the matmul).
inline constexpr std::uint64_t kFlash2PerOutputStep = 1;
/// End of the K/V loop: O ← O / l per output element; L = m + log l per row (1 add; 1 log).
inline constexpr std::uint64_t kFlash2PerOutputFinal = 1;
inline constexpr std::uint64_t kFlash2PerRowFinal = 1;
inline constexpr std::uint64_t kFlash2LogPerRowFinal = 1;

// Backward passes.
/// Standard backward, dS = P ∘ (dP − rowsum(P ∘ dP)): multiply, sum, subtract, multiply.
inline constexpr std::uint64_t kNaiveSoftmaxBwdPerScore = 4;
/// Scaling a gradient by 1/√d (dQ, dK): one multiply per element.
inline constexpr std::uint64_t kScalePerElement = 1;
/// Algorithm 4 recomputes P = diag(l)⁻¹·exp(τ·S − m): scale, subtract, divide (and one exp, kExpPerScore).
inline constexpr std::uint64_t kFlash1RecomputePerScore = 3;
/// FlashAttention-2 recomputes P = exp(τ·S − L): scale, subtract (and one exp).
inline constexpr std::uint64_t kFlash2RecomputePerScore = 2;
/// dS = P ∘ (dP − D): subtract, multiply.
inline constexpr std::uint64_t kDsPerScore = 2;
/// D = rowsum(dO ∘ O): multiply, add per element of a row of O.
inline constexpr std::uint64_t kRowDotPerElement = 2;
/// Grouped-query backward: a group's per-query-head dK (dV) summed into dK, one add per element read.
inline constexpr std::uint64_t kGroupSumPerInput = 1;

// Split-KV decoding, the combine pass: per split and row, the weight e^(L_s − L) (1 sub; 1 exp) and
// its accumulation into the sum (1); per split and output element, a multiply-add (2).
inline constexpr std::uint64_t kCombinePerSplitRow = 2;
inline constexpr std::uint64_t kCombineExpPerSplitRow = 1;
inline constexpr std::uint64_t kCombinePerSplitOutput = 2;

}  // namespace iosim::flops
