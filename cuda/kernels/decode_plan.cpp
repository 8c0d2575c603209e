// decode_plan(): a flashdecode spec's grid and splits (cuda/kernels/decode_plan.h).
#include "cuda/kernels/decode_plan.h"

#include <cuda_runtime.h>

#include <algorithm>

#include "sim/core/problem.h"
#include "sim/schedule/flashdecode/flashdecode.h"

namespace iosim::gpu::detail {

int device_sm_count() {
  static const int count = [] {
    int n = 0;
    if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, 0) != cudaSuccess) {
      static_cast<void>(cudaGetLastError());  // no GPU: clear the error, report 0
      return 0;
    }
    return n;
  }();
  return count;
}

std::string unsupported_decode(const KernelSpec& s) {
  if (!described(s).decode) {  // kv_heads is the other schedules' to check
    if (s.splits != 0) {
      return std::string(s.schedule) + " has no K/V splits (splits = " + std::to_string(s.splits) + ")";
    }
    return "";
  }
  if (s.pass != Direction::fwd) return std::string(s.schedule) + " has no backward pass";
  if (s.kv_heads < 0 || (s.heads >= 1 && s.kv_heads > 0 && s.heads % s.kv_heads != 0)) {
    return "kv_heads (" + std::to_string(s.kv_heads) + ") must divide heads (" + std::to_string(s.heads) + ")";
  }
  if (s.splits < 0 || s.splits > kMaxDecodeSplits) {
    return "splits = " + std::to_string(s.splits) + ": flashdecode takes 0 (the heuristic) to " +
           std::to_string(kMaxDecodeSplits);
  }
  return "";
}

DecodePlan decode_plan(const KernelSpec& spec, int sm_count) {
  DecodePlan p;
  const bool packed = described(spec).packed_heads;
  p.kv_heads = kv_heads_of(spec);
  const int group = spec.heads / p.kv_heads;
  p.rows = packed ? group * spec.n : spec.n;
  p.grid_heads = packed ? p.kv_heads : spec.heads;
  p.group_div = packed ? 1 : group;
  const int br = spec.br > 0 ? spec.br : 64, bc = spec.bc > 0 ? spec.bc : (spec.d <= 64 ? 256 : 128);  // FA2's tiles
  p.m_tiles = (p.rows + br - 1) / br;
  p.kv_tiles = (spec.n_kv + bc - 1) / bc;
  if (spec.splits > 0) {
    p.splits = std::min(spec.splits, p.kv_tiles);  // as the model caps --splits
  } else {
    Problem prob;
    prob.batch = static_cast<std::uint64_t>(spec.batch);
    prob.heads = static_cast<std::uint64_t>(spec.heads);
    prob.kv_heads = static_cast<std::uint64_t>(p.kv_heads);
    prob.n = static_cast<std::uint64_t>(spec.n);
    prob.n_kv = static_cast<std::uint64_t>(spec.n_kv);
    prob.d = static_cast<std::uint64_t>(spec.d);
    prob.dtype = spec.dtype;
    const int sms = sm_count > 0 ? sm_count : device_sm_count();
    const TileShape tiles{static_cast<std::uint64_t>(br), static_cast<std::uint64_t>(bc)};
    p.splits = sms > 0 ? static_cast<int>(flashdecode_splits(prob, tiles, static_cast<std::uint64_t>(sms), packed)) : 1;
  }
  p.tiles_per_split = (p.kv_tiles + p.splits - 1) / p.splits;
  return p;
}

}  // namespace iosim::gpu::detail
