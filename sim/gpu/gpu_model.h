// What a real GPU would move: a schedule's kernels run block by block through an L2 model.
//
// Each kernel's grid is launched in order (x fastest, then heads, as CUDA numbers blockIdx; or heads
// first); as many blocks run at once as the occupancy allows (SMs × blocks per SM); the running blocks
// take turns one step (one iteration of their innermost loop) at a time, and a finished block's place
// goes to the next in the launch order. Every load, store and reduction reaches the L2 as sectors; the
// L2 sends misses and write-backs to DRAM. The results are named after the Nsight Compute counters
// they predict (lts__t_sectors_srcunit_tex_op_{read,write,red} for what the SMs ask of the L2,
// dram__bytes_{read,write} for what reaches HBM).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/units.h"
#include "sim/gpu/gpu_observer.h"
#include "sim/gpu/occupancy.h"
#include "sim/schedule/schedule.h"

namespace iosim {

enum class LaunchOrder : std::uint8_t {
  x_major,      ///< blockIdx.x (Q or K/V tiles) fastest, as FlashAttention-2 launches (tiles, batch, heads)
  heads_major,  ///< heads fastest: every head's first tile, then every head's second …
};

/// How the L2 is replayed. Exact: every sector of every request, through every set (the reference).
/// Fast: a sample of the sets, and of the heads where they repeat, extrapolated (docs/gpu-model.md);
/// the sectors the SMs ask for, the FLOPs and the busiest SM stay exact.
enum class L2Mode : std::uint8_t { exact, fast };

[[nodiscard]] const char* l2_mode_name(L2Mode m);

struct GpuModelOptions {
  LaunchOrder order = LaunchOrder::x_major;
  /// Cold: the L2 starts empty. Warm: it holds what one earlier run of the same schedule left, written
  /// back (clean), as in a timing loop after its first iteration.
  bool warm = false;
  /// Empty the L2 before every kernel of the pass, not only before the first: what Nsight Compute's
  /// default cache control (--cache-control all) does to each kernel it profiles, so that its per-kernel
  /// counters of a pass of several kernels can be set beside the model. Off: the L2 is kept from kernel
  /// to kernel, as in a timed run. With it, cold and warm are the same.
  bool flush_each_kernel = false;
  std::string replacement = "lru";
  L2Mode l2 = L2Mode::exact;
  /// Fast mode: the first stride tried (every sample_stride-th set simulated; a power of two
  /// dividing the sets), smaller ones after it while the sample's error is too large; 0: chosen from
  /// the problem's size.
  std::uint32_t sample_stride = 0;
  /// Fast mode: extrapolate over heads that repeat (false: replay every head, sampling sets only).
  bool skip_heads = true;
  /// Fast mode: count a step that repeats the last step of its partition which only hit, with the
  /// L2 unchanged since, without replaying it (false: replay every step of the blocks replayed).
  bool reuse_steps = true;
  /// Fast mode: within a head, skip rounds (a step of every running block) whose DRAM and fabric rates
  /// repeat those of the window before, counting them at the rates of the windows about them
  /// (fast_kernel.cpp, "Rounds skipped"; false: replay every round of the heads replayed).
  bool skip_rounds = true;
  /// Fast mode: the warm run takes the cold run's counts from the first checkpoint where its state
  /// is the cold run's (FastReplay::warm(); false: the cold run keeps no trace and the warm run is
  /// replayed to its end). Exact either way.
  bool follow_cold = true;
  /// Exact mode: merge the reads of one line that several blocks make of one L2 partition in one round
  /// of the replay into lookups of up to kMergeCap requests (read_merge.h): the merged requests are
  /// delivered to the SMs but counted as no lookup and not sent to the L2. Not in fast mode (predict()
  /// throws InputError).
  bool merge_reads = false;
  /// Told about every block and transfer of the (cold or measured) run; not of a warm-up run. Null: none.
  GpuObserver* observer = nullptr;
};

/// Work a kernel's blocks did on the busiest SM, for the time model.
struct SmLoad {
  double matmul_flops = 0;
  double vector_flops = 0;
  double special_ops = 0;  ///< exp and log
  double sram_bytes = 0;  ///< shared memory written by loads, read by stores and by matrix products
};

struct KernelPrediction {
  std::string name;
  std::uint64_t blocks = 0;
  LaunchShape launch;
  Occupancy occupancy;
  double waves = 0;  ///< blocks ÷ blocks running at once
  std::uint64_t l2_read_sectors = 0;   ///< lts__t_sectors_srcunit_tex_op_read: the L2's read lookups
  /// Read sectors delivered to the SMs without a lookup of their own (GpuModelOptions::merge_reads).
  std::uint64_t l2_merged_read_sectors = 0;
  std::uint64_t l2_write_sectors = 0;  ///< lts__t_sectors_srcunit_tex_op_write, spills included
  /// Of those, the compiled kernel's register spills (local stores; spill_stores.h): not replayed
  /// through the L2, no DRAM traffic.
  std::uint64_t l2_spill_write_sectors = 0;
  std::uint64_t l2_red_sectors = 0;    ///< lts__t_sectors_srcunit_tex_op_red
  std::uint64_t l2_fabric_read_sectors = 0;  ///< lts__t_sectors_srcunit_ltcfabric_op_read (two partitions)
  Bytes dram_read;                     ///< dram__bytes_read
  Bytes dram_write;                    ///< dram__bytes_write, while the kernel runs
  Flops matmul;
  Flops vector;
  Flops special;                       ///< exp and log evaluations
  Bytes sram;                          ///< all blocks' shared-memory traffic
  SmLoad busiest;                      ///< the most loaded SM's share
  std::uint64_t heads_replayed = 0;    ///< grid heads replayed through the L2 (fast mode: fewer than all)

  /// l1tex__m_xbar2l1tex_read_sectors: every read sector the SMs asked for, merged or not.
  [[nodiscard]] std::uint64_t xbar_read_sectors() const { return l2_read_sectors + l2_merged_read_sectors; }
};

struct Prediction {
  bool warm = false;
  LaunchOrder order = LaunchOrder::x_major;  ///< how the blocks were launched (the time model follows it)
  L2Mode l2 = L2Mode::exact;
  bool flushed_each_kernel = false;  ///< GpuModelOptions::flush_each_kernel: each kernel from an empty L2
  bool merged_reads = false;  ///< GpuModelOptions::merge_reads: lookups and delivered reads differ
  std::uint32_t sample_stride = 1;  ///< 1 in 1 sets simulated (1: all)
  std::uint32_t sector_bytes = 32;
  std::vector<KernelPrediction> kernels;
  Bytes dirty_at_end;  ///< still dirty in the L2 after the last kernel: written back later

  [[nodiscard]] std::uint64_t l2_read_sectors() const;
  [[nodiscard]] std::uint64_t xbar_read_sectors() const;
  [[nodiscard]] std::uint64_t l2_write_sectors() const;
  [[nodiscard]] std::uint64_t l2_red_sectors() const;
  [[nodiscard]] Bytes dram_read() const;
  /// DRAM writes during the kernels plus the dirty lines written back after them: what a measurement
  /// that drains the L2 after its range counts.
  [[nodiscard]] Bytes dram_write() const;
};

/// Runs `s` (built from `ctx`) through the model of `ctx.hardware`. Throws InputError when a kernel's
/// block cannot fit an SM (occupancy().infeasible).
[[nodiscard]] Prediction predict(const Schedule& s, const ScheduleContext& ctx, const GpuModelOptions& opt = {});

/// predict() cold and warm (opt.warm ignored) in one go: the warm run's first pass, which only fills
/// the L2, is the cold run itself. The same counts as two calls, in less time.
struct ColdWarm {
  Prediction cold;
  Prediction warm;
};
[[nodiscard]] ColdWarm predict_cold_warm(const Schedule& s, const ScheduleContext& ctx, const GpuModelOptions& opt = {});

}  // namespace iosim
