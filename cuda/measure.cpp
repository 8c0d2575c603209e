// measure(): one KernelSpec under the hardware counters and under CUDA events.
//
//   inputs drawn, outputs poisoned; for a backward, the forward run first (its saved tensors)
//   warm-up: `warmup` runs
//   counters: range "flush": an L2 sweep → range "clean": the same sweep of the now clean L2 → range
//             "run": the schedule's kernels → range "drain": a sweep; DRAM writes of the run = run +
//             (drain − clean) (the L2 is write-back: the run's dirty lines are written while the drain
//             evicts them, ../shared/domain-notes.md; a sweep of a clean L2 writes tens of kB of its
//             own, which are not the run's). The flush is a
//             profiled range, not a sweep before the profiler starts: starting the range profiler leaves
//             about 21 MB dirty in the L2 of an H200 (measured), which an earlier sweep cannot
//             clean and which would otherwise be written back inside "run" and "drain".
//             Kernels that load by TMA (flash3) also count the bytes TMA loads (metric::tma_read_bytes).
//   time:     `runs` runs, each after a sweep outside its events (cold), then `runs` back to back
//             (warm); the median of each
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "cuda/backend.h"
#include "cuda/kernels/launch.h"
#include "cuda/profiler/range_profiler.h"
#include "cuda/runtime/check.h"
#include "cuda/runtime/l2_sweep.h"

namespace iosim::gpu {

namespace {

constexpr std::uint64_t kSeed = 20261129;

class Stream {
 public:
  Stream() { IOSIM_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() { (void)cudaStreamDestroy(s_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  [[nodiscard]] cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

class Event {
 public:
  Event() { IOSIM_CUDA_CHECK(cudaEventCreate(&e_)); }
  ~Event() { (void)cudaEventDestroy(e_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  [[nodiscard]] cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

Timing summarise(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  Timing t;
  t.runs = static_cast<int>(ms.size());
  if (ms.empty()) return t;
  const std::size_t h = ms.size() / 2;
  t.median_ms = ms.size() % 2 == 1 ? ms[h] : (ms[h - 1] + ms[h]) / 2;
  t.min_ms = ms.front();
  t.max_ms = ms.back();
  return t;
}

/// `runs` timed launches; with `sweep`, an L2 sweep before each, outside the events.
Timing time_runs(const KernelSpec& spec, detail::AttentionBuffers& buf, cudaStream_t stream, int runs,
                 const L2Sweep* sweep) {
  Event start, stop;
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
    if (sweep != nullptr) sweep->sweep(stream);
    IOSIM_CUDA_CHECK(cudaEventRecord(start.get(), stream));
    detail::launch(spec, buf, stream);
    IOSIM_CUDA_CHECK(cudaEventRecord(stop.get(), stream));
    IOSIM_CUDA_CHECK(cudaEventSynchronize(stop.get()));
    float elapsed = 0;
    IOSIM_CUDA_CHECK(cudaEventElapsedTime(&elapsed, start.get(), stop.get()));
    ms.push_back(static_cast<double>(elapsed));
  }
  return summarise(std::move(ms));
}

/// The counters of one run of `spec`, cold, with the drain's write-backs added.
void count(const KernelSpec& spec, detail::AttentionBuffers& buf, cudaStream_t stream, const L2Sweep& sweep,
           bool flush, Measurement& m) {
  const ProfilerDevice dev = current_profiler_device();
  const MetricSet set = iosim_metric_set(dev.chip, spec.dtype, dev.counter_availability, m.tma_loads);
  m.chip = dev.chip;
  m.dropped_metrics = set.dropped;
  RangeProfiler prof(set.metrics);
  prof.begin_range("flush");
  if (flush) sweep.sweep(stream);
  prof.end_range();
  // The same sweep once more on an L2 that holds only the flush's clean lines: what the drain writes to
  // DRAM when no kernel left a dirty line. A read-only sweep still shows tens of kB of DRAM writes on the
  // H100 and the H200 (22.5–89 kB after kernels with no global store, tests/gpu/test_profiler.cpp), which
  // are not the run's.
  // Without the flush the run starts on whatever the L2 holds, and the clean range is left empty.
  prof.begin_range("clean");
  if (flush) sweep.sweep(stream);
  prof.end_range();
  prof.begin_range("run");
  detail::launch(spec, buf, stream);
  prof.end_range();
  prof.begin_range("drain");
  sweep.sweep(stream);
  prof.end_range();
  const std::vector<RangeResult> r = prof.results();
  const RangeResult& clean = r.at(1);
  const RangeResult& run = r.at(2);
  const RangeResult& drain = r.at(3);
  const auto get = [&](const RangeResult& x, const char* metric) {
    const auto it = x.values.find(metric);
    return it == x.values.end() ? 0.0 : it->second;
  };
  Counters& c = m.counters;
  c.dram_read_bytes = get(run, metric::dram_read);
  c.run_dram_write_bytes = get(run, metric::dram_write);
  c.drain_dram_write_bytes = get(drain, metric::dram_write);
  c.clean_drain_dram_write_bytes = get(clean, metric::dram_write);
  // The run's writes: its own range plus what the drain wrote beyond the clean L2's drain.
  c.dram_write_bytes =
      c.run_dram_write_bytes + std::max(0.0, c.drain_dram_write_bytes - c.clean_drain_dram_write_bytes);
  c.l2_read_sectors = get(run, metric::l2_read_sectors);
  c.l2_write_sectors = get(run, metric::l2_write_sectors);
  c.l2_atom_sectors = get(run, metric::l2_atom_sectors);
  c.l2_red_sectors = get(run, metric::l2_red_sectors);
  c.smem_ld_wavefronts = get(run, metric::smem_ld_wavefronts);
  c.smem_st_wavefronts = get(run, metric::smem_st_wavefronts);
  c.tensor_ops = run.sum(set.tensor_metrics);
  c.tma_read_bytes = get(run, metric::tma_read_bytes);
  m.has_tma_counter = std::find(set.metrics.begin(), set.metrics.end(), metric::tma_read_bytes) != set.metrics.end();
  m.has_counters = true;
}

}  // namespace

Measurement measure(const KernelSpec& spec, const MeasureOptions& opt) {
  if (const std::string why = unsupported(spec); !why.empty()) throw std::runtime_error("measure: " + why);
  Measurement m;
  m.spec = spec;
  m.device = device_info().name;
  m.tma_loads = described(spec).hopper_tma;  // TMA loads: L2 reads counted at the L1 side
  Stream stream;
  detail::AttentionBuffers buf(spec);
  buf.fill_inputs(kSeed, stream.get());
  buf.poison_outputs(stream.get());
  if (spec.pass == Direction::bwd) detail::prepare_backward(spec, buf, stream.get());
  for (int w = 0; w < opt.warmup; ++w) detail::launch(spec, buf, stream.get());
  IOSIM_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  const L2Sweep sweep;
  if (opt.counters) {
    try {
      count(spec, buf, stream.get(), sweep, opt.flush_l2, m);
    } catch (const ProfilerError& e) {
      m.counters_error = e.what();
    }
  }
  m.time = time_runs(spec, buf, stream.get(), opt.runs, opt.flush_l2 ? &sweep : nullptr);
  m.time_warm = time_runs(spec, buf, stream.get(), opt.runs, nullptr);
  return m;
}

}  // namespace iosim::gpu
