// What one thread block of a kernel does, step by step: the input of the time model's SM model.
//
// A block's events are cut at its step markers (Emitter::step(), the end of one iteration of its
// innermost loop) into segments; the segment after the last marker is the block's epilogue. Equal
// consecutive segments are kept once with their count, so a block of 1,000 equal K/V steps is a
// prologue-and-first-step segment, one run of 999 and an epilogue. The schedule is walked, not the
// L2: profiling a kernel costs one block per distinct x of its grid, never the whole grid.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/dtype.h"
#include "sim/core/event_sink.h"
#include "sim/schedule/kernel.h"

namespace iosim {

/// One matrix product of a step, (m × k) · (k × n).
struct MatmulShape {
  std::uint64_t m = 0, n = 0, k = 0;
  friend bool operator==(const MatmulShape&, const MatmulShape&) = default;
};

/// The work between two step markers of one block.
struct Segment {
  std::vector<MatmulShape> matmuls;  ///< in the order the block performs them
  double vector_flops = 0;
  double special_ops = 0;
  double load_bytes = 0;    ///< HBM → SRAM (through the L2)
  double store_bytes = 0;   ///< SRAM → HBM
  double reduce_bytes = 0;  ///< atomic adds into HBM
  friend bool operator==(const Segment&, const Segment&) = default;
};

struct SegmentRun {
  Segment segment;
  std::uint64_t count = 1;
};

/// One block, as runs of equal segments; the last run is the epilogue when the block ends after its
/// last step marker with more work.
struct BlockProfile {
  std::vector<SegmentRun> runs;
  std::uint64_t steps = 0;  ///< step markers seen
  friend bool operator==(const BlockProfile& a, const BlockProfile& b) {
    if (a.steps != b.steps || a.runs.size() != b.runs.size()) return false;
    for (std::size_t i = 0; i < a.runs.size(); ++i) {
      if (a.runs[i].count != b.runs[i].count || !(a.runs[i].segment == b.runs[i].segment)) return false;
    }
    return true;
  }
};

/// The blocks of a kernel's grid along x (every head's blocks are alike, Kernel::block's contract):
/// `profiles[x]` indexes `distinct`, so that a uniform grid costs one or two distinct profiles.
struct KernelProfile {
  std::vector<BlockProfile> distinct;
  std::vector<std::uint32_t> profile_of_x;
  std::uint64_t heads = 0;
};

/// An EventSink that cuts one block's events into segments.
class StepProfiler final : public EventSink {
 public:
  explicit StepProfiler(DType element) : element_(element) {}
  void on_transfer(const Transfer& t) override;
  void on_compute(const Compute& c) override;
  void on_step() override;
  /// The profile of the events seen so far (the open segment closed as the epilogue).
  [[nodiscard]] BlockProfile finish();

 private:
  void close();
  DType element_;
  Segment open_;
  bool open_empty_ = true;
  BlockProfile out_;
};

/// Every distinct block of `k`'s grid along x.
[[nodiscard]] KernelProfile profile_kernel(const Kernel& k, DType element);

}  // namespace iosim
