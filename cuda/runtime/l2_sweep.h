// Flushing and draining the L2 cache by reading a buffer several times its size.
//
// The L2 is write-back: a kernel's dirty lines stay in it after the kernel ends and are written to
// DRAM during whatever runs next (about 23-25 MB seen on an H200). iosim therefore measures a
// schedule as
//   sweep (unprofiled)      → the L2 holds only clean lines of the sweep buffer: a cold start
//   range "run"             → the schedule's kernels
//   range "drain" = sweep   → evicts the run's dirty lines; their write-back is counted here
// and takes the run's DRAM writes as run.dram__bytes_write + drain.dram__bytes_write
// (domain notes, "Measuring what a kernel moves"; verified exact on an H200).
//
// Why a read sweep and not cudaMemset or a write kernel: a write sweep would leave the L2 full of
// its own dirty lines, written back during the next range (the measured run, or after the drain),
// so DRAM writes would be charged to the wrong range. Reading leaves only clean lines, which are
// dropped without DRAM traffic when the next range evicts them.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace iosim::gpu {

class L2Sweep {
 public:
  /// 4 × L2 evicts every line of a 60 MiB L2 in practice; see the notes above.
  static constexpr int kDefaultL2Multiple = 4;

  /// Allocates `l2_multiple` × cudaDeviceProp::l2CacheSize bytes on the current device, fills it,
  /// and sweeps once, so that the fill's own dirty lines are gone when the constructor returns
  /// (it synchronises the device). Throws CudaError (cuda/runtime/check.h).
  explicit L2Sweep(int l2_multiple = kDefaultL2Multiple);
  ~L2Sweep();
  L2Sweep(const L2Sweep&) = delete;
  L2Sweep& operator=(const L2Sweep&) = delete;
  L2Sweep(L2Sweep&&) = delete;
  L2Sweep& operator=(L2Sweep&&) = delete;

  /// Enqueues one read of the whole buffer on `stream` (16-byte loads, grid-stride, nothing
  /// written unless the data holds a value it never holds). Does not synchronise.
  void sweep(cudaStream_t stream) const;

  [[nodiscard]] std::size_t bytes() const { return bytes_; }
  [[nodiscard]] std::size_t l2_bytes() const { return l2_bytes_; }

 private:
  void* buffer_ = nullptr;
  std::uint32_t* sink_ = nullptr;
  std::size_t bytes_ = 0;
  std::size_t l2_bytes_ = 0;
  int grid_ = 0;
};

}  // namespace iosim::gpu
