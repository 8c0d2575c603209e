// One step of FlashAttention-2's forward: what flash2's forward and the split-KV kernel of flashdecode
// (and flashdecode-heads) each do for one Q tile against one K/V tile.
#pragma once

#include <cstdint>

#include "sim/core/dtype.h"
#include "sim/core/emitter.h"
#include "sim/schedule/flops.h"
#include "sim/schedule/tiles.h"

namespace iosim {

/// K_j and V_j loaded; S = Q_i K_jᵀ (reading the block's `rows` rows of Q once and K_j once per warp),
/// masked where the diagonal crosses it, the online softmax (m, α, l), O_i ← α·O_i + P_ij V_j (V_j read
/// once per warp); then the step ends.
inline void flash2_forward_step(const Emitter& e, std::uint64_t rows, const Span& j, bool masked, std::uint64_t d,
                                DType dtype, std::uint32_t warps) {
  const std::uint64_t elem = size_bytes(dtype);
  e.load(rows_of(Tensor::K, j, d));
  e.load(rows_of(Tensor::V, j, d));
  e.matmul(rows, j.size, d, Bytes((rows + warps * j.size) * d * elem));
  if (masked) e.vector(flops::kMaskPerScore * rows * j.size);
  e.vector(flops::kSoftmaxPerScore * rows * j.size);  // scale, max, sum
  e.special(flops::kExpPerScore * rows * j.size);     // exp
  e.vector(flops::kFlash2PerRowStep * rows);          // m, α, l
  e.special(flops::kFlash2ExpPerRowStep * rows);
  e.vector(flops::kFlash2PerOutputStep * rows * d);   // O_i ← α·O_i
  e.matmul(rows, d, j.size, Bytes(warps * j.size * d * elem));  // O_i += P_ij V_j
  e.step();
}

}  // namespace iosim
