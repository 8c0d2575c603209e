// How a flashdecode KernelSpec runs: its grid heads and rows (packed or per query head) and its K/V
// splits, the split count from sim/schedule's flashdecode_splits() (the function the model calls) on
// this GPU's SM count. Plain C++, used by the launcher (flashdecode.cuh), the buffers (tensors.h) and
// dispatch.
#pragma once

#include <string>

#include "cuda/backend.h"

namespace iosim::gpu::detail {

/// The most splits the combine kernel takes (its weights: 64 rows × splits floats of shared memory);
/// FlashAttention-2's heuristic never picks more (fa2_num_splits' max_splits).
inline constexpr int kMaxDecodeSplits = 128;

/// spec.kv_heads, or heads where it is 0.
[[nodiscard]] constexpr int kv_heads_of(const KernelSpec& s) { return s.kv_heads != 0 ? s.kv_heads : s.heads; }

struct DecodePlan {
  int rows = 0;        ///< rows of one grid head: group · n packed, n per query head
  int grid_heads = 0;  ///< grid heads per batch: kv_heads packed, heads per query head
  int group_div = 1;   ///< grid heads per K/V head: 1 packed, the group per query head
  int kv_heads = 0;
  int m_tiles = 0;     ///< ⌈rows / 64⌉
  int kv_tiles = 0;    ///< ⌈n_kv / B_c⌉
  int splits = 1;
  int tiles_per_split = 0;  ///< ⌈kv_tiles / splits⌉
};

/// The plan of a flashdecode spec (valid shape: kv_heads divides heads, B_c > 0). With spec.splits = 0
/// the split count needs the GPU (its SM count, read once); `sm_count` overrides it where > 0.
[[nodiscard]] DecodePlan decode_plan(const KernelSpec& spec, int sm_count = 0);

/// Empty if the decoding-specific fields of `spec` are valid for its schedule; otherwise why not (the
/// other schedules take splits 0; flashdecode a forward, kv_heads dividing heads, 0 ≤ splits ≤
/// kMaxDecodeSplits).
[[nodiscard]] std::string unsupported_decode(const KernelSpec& spec);

/// The SM count of device 0, read once (0 when no GPU is visible).
[[nodiscard]] int device_sm_count();

}  // namespace iosim::gpu::detail
