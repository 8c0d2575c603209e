// In-process hardware counters over user-defined ranges, with CUPTI's Range Profiling API
// (cupti_range_profiler.h: user ranges, user replay, one pass) and the Profiler Host API
// (cupti_profiler_host.h: metric configuration and evaluation). Plain C++: no CUPTI or CUDA type
// appears in this header.
//
// How iosim measures a schedule (docs: /work/shared/domain-notes.md, "Measuring what a kernel moves"):
//   L2Sweep::sweep (unprofiled: cold L2 holding only clean lines)
//   begin_range("run")   … the schedule's kernels, cuBLAS included …   end_range()
//   begin_range("drain") L2Sweep::sweep                                 end_range()
//   results(): the run's DRAM writes are run.dram__bytes_write + drain.dram__bytes_write, because the
//   L2 is write-back and the run's dirty lines are written back while the drain sweep evicts them.
//
// One profiling client per process: CUPTI refuses a second one (ncu, nsys --gpu-metrics, or a second
// RangeProfiler), and IOSIM_NO_PROFILER turns this one off. Every failure throws ProfilerError with
// the CUPTI call and CUPTI's error string; callers report "counters unavailable: <what()>".
//
// Needs at run time: libcupti.so.13 (linked) and libnvperf_host.so / libnvperf_target.so, which
// libcupti loads itself (they must be on the loader's path), and profiling rights (root, or
// NVreg_RestrictProfilingToAdminUsers=0).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/core/dtype.h"

namespace iosim::gpu {

/// A CUPTI failure, or a refusal to profile (IOSIM_NO_PROFILER, a metric set needing several passes).
class ProfilerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The metrics iosim collects, in the order it keeps them when a chip cannot collect all in one pass.
namespace metric {
inline constexpr const char* dram_read = "dram__bytes_read.sum";
inline constexpr const char* dram_write = "dram__bytes_write.sum";
inline constexpr const char* l2_read_sectors = "lts__t_sectors_srcunit_tex_op_read.sum";
inline constexpr const char* l2_write_sectors = "lts__t_sectors_srcunit_tex_op_write.sum";
inline constexpr const char* l2_atom_sectors = "lts__t_sectors_srcunit_tex_op_atom.sum";
inline constexpr const char* l2_red_sectors = "lts__t_sectors_srcunit_tex_op_red.sum";
inline constexpr const char* smem_ld_wavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
inline constexpr const char* smem_st_wavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum";
/// The bytes TMA loads from global memory, at the L1 side (exact for flash3 on an H200, where the L2-side
/// lts__t_sectors_srcunit_tex_op_read sees 62% of them: docs/flash3.md); collected for TMA kernels only.
inline constexpr const char* tma_read_bytes = "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum";
}  // namespace metric

/// Empty when the in-process profiler may run; otherwise why not (IOSIM_NO_PROFILER is set).
[[nodiscard]] std::string profiler_disabled_reason();

/// The profiler's view of the current CUDA device (the runtime's primary context is created if
/// need be).
struct ProfilerDevice {
  int ordinal = 0;
  std::string chip;                               ///< CUPTI's chip name: "GH100", "GA100", …
  std::vector<std::uint8_t> counter_availability;  ///< cuptiProfilerGetCounterAvailability's image
};

/// Initialises the CUPTI profiler (once per process) and reads chip name and counter availability.
/// Throws ProfilerError (IOSIM_NO_PROFILER set, no profiling rights, another profiling client).
[[nodiscard]] ProfilerDevice current_profiler_device();

/// Passes CUPTI needs to collect `metrics` together on `chip` (host only: no GPU needed when
/// `counter_availability` is empty). Throws ProfilerError naming the metric that is not supported.
[[nodiscard]] std::size_t count_passes(const std::string& chip, const std::vector<std::string>& metrics,
                                       std::span<const std::uint8_t> counter_availability = {});

/// What iosim collects on one chip for one element type.
struct MetricSet {
  std::string chip;
  std::vector<std::string> metrics;         ///< to give RangeProfiler, highest priority first
  std::vector<std::string> tensor_metrics;  ///< subset of `metrics` whose sum is the tensor ops of
                                            ///< the type; empty when none could be kept
  std::vector<std::string> dropped;         ///< one line per metric iosim wanted but cannot have
  std::size_t passes = 0;                   ///< of `metrics`; 1 unless `metrics` is empty
};

/// The metric set iosim needs on `chip` for inputs of type `dtype`: DRAM bytes, L2 sectors from the
/// SMs (read, write, atomic, reduction), shared-memory wavefronts and tensor ops, in that priority.
/// A metric the chip does not have is dropped (and said so in `dropped`); metrics are then kept in
/// priority order only while the set still needs one pass, so DRAM and L2 are kept before shared
/// memory and tensor ops. Tensor ops may be a sum of several metrics: on GH100 the fp16 total
/// `sm__ops_path_tensor_src_fp16.sum` needs two passes on its own with CUDA 13.0's CUPTI, so iosim
/// counts fp16 as mma.sync with fp32 accumulators plus all of wgmma
/// (`sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32.sum + sm__ops_path_tensor_op_hgmma_src_fp16.sum`),
/// which fits one pass. With `tma_loads` (a kernel that loads by TMA) the TMA read bytes come right after
/// DRAM, before the L2 sectors. Host only; throws ProfilerError if CUPTI's host library fails.
[[nodiscard]] MetricSet iosim_metric_set(const std::string& chip, DType dtype,
                                         std::span<const std::uint8_t> counter_availability = {},
                                         bool tma_loads = false);

/// Metric values of one range, summed over the whole GPU.
struct RangeResult {
  std::string name;
  std::map<std::string, double> values;

  /// The value of `metric`; throws ProfilerError if the range has no such metric.
  [[nodiscard]] double at(const std::string& metric) const;
  /// Sum of the values of `metrics` (0 for an empty list).
  [[nodiscard]] double sum(const std::vector<std::string>& metrics) const;
};

/// Counters over named ranges of the current CUDA context, for one set of metrics that CUPTI can
/// collect in a single pass. One measurement per object: begin_range/end_range any number of
/// non-nested ranges (up to max_ranges), then results(); construct a new one for the next
/// measurement. At most one may exist at a time in a process.
class RangeProfiler {
 public:
  static constexpr std::size_t kDefaultMaxRanges = 16;

  /// Configures CUPTI for `metrics` on the current context (see range_profiler.cpp for the calls).
  /// Throws ProfilerError: IOSIM_NO_PROFILER set, another RangeProfiler alive, another profiling
  /// client in the process, no profiling rights, a metric the chip lacks (named), or a set needing
  /// more than one pass (the message names the metrics).
  explicit RangeProfiler(std::vector<std::string> metrics, std::size_t max_ranges = kDefaultMaxRanges);
  /// Pops an open range, stops, disables and releases CUPTI; never throws.
  ~RangeProfiler();
  RangeProfiler(const RangeProfiler&) = delete;
  RangeProfiler& operator=(const RangeProfiler&) = delete;
  RangeProfiler(RangeProfiler&&) = delete;
  RangeProfiler& operator=(RangeProfiler&&) = delete;

  /// Waits for the context's pending work, then opens range `name`: every kernel of the context
  /// (any stream, cuBLAS included) from here to end_range() is counted in it. Starts the profiler
  /// on the first call. Throws std::logic_error when a range is open, after results(), or past
  /// max_ranges.
  void begin_range(const std::string& name);
  /// Waits for the context's pending work, then closes the open range. Throws std::logic_error when
  /// none is open.
  void end_range();

  /// Stops the profiler, decodes the counter data and evaluates every metric of every range, in
  /// the order the ranges were opened. Later calls return the same results. Throws std::logic_error
  /// while a range is open.
  [[nodiscard]] std::vector<RangeResult> results();

  [[nodiscard]] const std::string& chip() const;
  [[nodiscard]] const std::vector<std::string>& metrics() const;
  [[nodiscard]] std::size_t passes() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace iosim::gpu
