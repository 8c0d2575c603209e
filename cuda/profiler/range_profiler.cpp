// RangeProfiler: counters over user ranges with CUPTI's Range Profiling API (CUDA 13.0).
//
// Call sequence, after NVIDIA's CUPTI sample range_profiling (range_profiling.cu and its helper
// header), with user ranges and user replay:
//   construction   cuptiProfilerInitialize (once per process)
//                  cuptiDeviceGetChipName
//                  cuptiProfilerGetCounterAvailability (size, then image)
//                  cuptiProfilerHostInitialize
//                  cuptiProfilerHostGetMetricProperties (each metric: a clear error for one the chip lacks)
//                  cuptiProfilerHostConfigAddMetrics
//                  cuptiProfilerHostGetConfigImageSize, cuptiProfilerHostGetConfigImage
//                  cuptiProfilerHostGetNumOfPasses (must be 1)
//                  cuptiRangeProfilerEnable
//                  cuptiRangeProfilerGetCounterDataSize, cuptiRangeProfilerCounterDataImageInitialize
//                  cuptiRangeProfilerSetConfig (user range, user replay, pass 0)
//   begin_range    [first: cuptiRangeProfilerStart] cuptiRangeProfilerPushRange
//   end_range      cuptiRangeProfilerPopRange
//   results        cuptiRangeProfilerStop (all passes submitted: one pass)
//                  cuptiRangeProfilerDecodeData
//                  cuptiRangeProfilerGetCounterDataInfo
//                  per range: cuptiRangeProfilerCounterDataGetRangeInfo, cuptiProfilerHostEvaluateToGpuValues
//   destruction    [cuptiRangeProfilerPopRange] [cuptiRangeProfilerStop] cuptiRangeProfilerDisable
//                  cuptiProfilerHostDeinitialize
//   (cuptiProfilerDeInitialize is never called: see ensure_profiler_initialized)
#include "cuda/profiler/range_profiler.h"

#include "cuda/runtime/check.h"

#include <atomic>
#include <cstdlib>
#include <deque>
#include <utility>

#include "cuda/profiler/cupti_util.h"

namespace iosim::gpu {

std::string profiler_disabled_reason() {
  constexpr const char* kDisableVariable = "IOSIM_NO_PROFILER";
  if (std::getenv(kDisableVariable) != nullptr) {
    return std::string(kDisableVariable) + " is set: the in-process profiler is off";
  }
  return {};
}

double RangeResult::at(const std::string& metric_name) const {
  const auto it = values.find(metric_name);
  if (it == values.end()) {
    throw ProfilerError("range '" + name + "' has no metric " + metric_name);
  }
  return it->second;
}

double RangeResult::sum(const std::vector<std::string>& metrics) const {
  double total = 0;
  for (const std::string& m : metrics) {
    total += at(m);
  }
  return total;
}

// ---- RangeProfiler ----------------------------------------------------------------------------

namespace {

using cupti::AlignedBytes;

/// The one RangeProfiler a process may hold.
class ProfilerSlot {
 public:
  ProfilerSlot() {
    if (taken().exchange(true)) {
      throw ProfilerError(
          "another RangeProfiler is alive in this process (CUPTI allows one profiling session per process)");
    }
  }
  ~ProfilerSlot() { taken().store(false); }
  ProfilerSlot(const ProfilerSlot&) = delete;
  ProfilerSlot& operator=(const ProfilerSlot&) = delete;

 private:
  static std::atomic<bool>& taken() {
    static std::atomic<bool> flag{false};
    return flag;
  }
};

/// The range profiler object of one context: enabled on construction, stopped (if started) and
/// disabled on destruction. Holds no images: the owner keeps them alive until this is gone.
class RangeSession {
 public:
  RangeSession() = default;
  ~RangeSession() {
    if (object_ == nullptr) {
      return;
    }
    if (range_open_) {
      auto pop = IOSIM_CUPTI_PARAMS(CUpti_RangeProfiler_PopRange_Params);
      pop.pRangeProfilerObject = object_;
      (void)cuptiRangeProfilerPopRange(&pop);
    }
    if (started_) {
      auto stop = IOSIM_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params);
      stop.pRangeProfilerObject = object_;
      (void)cuptiRangeProfilerStop(&stop);
    }
    auto disable = IOSIM_CUPTI_PARAMS(CUpti_RangeProfiler_Disable_Params);
    disable.pRangeProfilerObject = object_;
    (void)cuptiRangeProfilerDisable(&disable);
  }
  RangeSession(const RangeSession&) = delete;
  RangeSession& operator=(const RangeSession&) = delete;

  void enable(CUcontext ctx) {
    auto p = IOSIM_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params);
    p.ctx = ctx;
    IOSIM_CUPTI(cuptiRangeProfilerEnable, p);
    object_ = p.pRangeProfilerObject;
  }

  /// Sizes and initialises the counter-data image for `metrics` and `max_ranges` ranges.
  [[nodiscard]] AlignedBytes counter_data_image(std::vector<const char*>& metrics, std::size_t max_ranges) const {
    auto size = IOSIM_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params);
    size.pRangeProfilerObject = object_;
    size.pMetricNames = metrics.data();
    size.numMetrics = metrics.size();
    size.maxNumOfRanges = max_ranges;
    size.maxNumRangeTreeNodes = static_cast<std::uint32_t>(max_ranges);
    IOSIM_CUPTI(cuptiRangeProfilerGetCounterDataSize, size);

    AlignedBytes image(size.counterDataSize);
    auto init = IOSIM_CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
    init.pRangeProfilerObject = object_;
    init.counterDataSize = image.size();
    init.pCounterData = image.data();
    IOSIM_CUPTI(cuptiRangeProfilerCounterDataImageInitialize, init);
    return image;
  }

  /// User ranges, user replay, one nesting level, pass 0. Both images must outlive this object.
  void set_config(const AlignedBytes& config, AlignedBytes& counter_data, std::size_t max_ranges) const {
    auto p = IOSIM_CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params);
    p.pRangeProfilerObject = object_;
    p.configSize = config.size();
    p.pConfig = config.data();
    p.counterDataImageSize = counter_data.size();
    p.pCounterDataImage = counter_data.data();
    p.range = CUPTI_UserRange;
    p.replayMode = CUPTI_UserReplay;
    p.maxRangesPerPass = max_ranges;
    p.numNestingLevels = 1;
    p.minNestingLevel = 1;
    p.passIndex = 0;
    p.targetNestingLevel = 1;
    IOSIM_CUPTI(cuptiRangeProfilerSetConfig, p);
  }

  void start() {
    auto p = IOSIM_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params);
    p.pRangeProfilerObject = object_;
    IOSIM_CUPTI(cuptiRangeProfilerStart, p);
    started_ = true;
  }

  void push(const char* name) {
    auto p = IOSIM_CUPTI_PARAMS(CUpti_RangeProfiler_PushRange_Params);
    p.pRangeProfilerObject = object_;
    p.pRangeName = name;
    IOSIM_CUPTI(cuptiRangeProfilerPushRange, p);
    range_open_ = true;
  }

  void pop() {
    auto p = IOSIM_CUPTI_PARAMS(CUpti_RangeProfiler_PopRange_Params);
    p.pRangeProfilerObject = object_;
    IOSIM_CUPTI(cuptiRangeProfilerPopRange, p);
    range_open_ = false;
  }

  /// Stops the profiler; true when every pass has been submitted (always, for a one-pass config).
  [[nodiscard]] bool stop() {
    auto p = IOSIM_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params);
    p.pRangeProfilerObject = object_;
    IOSIM_CUPTI(cuptiRangeProfilerStop, p);
    started_ = false;
    return p.isAllPassSubmitted != 0;
  }

  /// Decodes the collected data into the counter-data image; returns the number of dropped ranges.
  [[nodiscard]] std::size_t decode() const {
    auto p = IOSIM_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
    p.pRangeProfilerObject = object_;
    IOSIM_CUPTI(cuptiRangeProfilerDecodeData, p);
    return p.numOfRangeDropped;
  }

  [[nodiscard]] bool started() const { return started_; }
  [[nodiscard]] bool range_open() const { return range_open_; }

 private:
  CUpti_RangeProfiler_Object* object_ = nullptr;
  bool started_ = false;
  bool range_open_ = false;
};

}  // namespace

// Members are destroyed in reverse order: the session (pop, stop, disable) first, then the host
// object, the images CUPTI was given, and last the process slot.
struct RangeProfiler::State {
  ProfilerSlot slot;
  std::string chip;
  std::vector<std::uint8_t> availability;
  std::vector<std::string> metrics;
  std::vector<const char*> metric_names;  // points into `metrics`
  std::size_t max_ranges = 0;
  std::size_t passes = 0;
  cupti::HostObject host;
  AlignedBytes config;
  AlignedBytes counter_data;
  std::deque<std::string> range_names;  // stable addresses for the names given to CUPTI
  bool finished = false;
  std::string failure;  // what() of a failed results(), thrown again by later calls
  std::vector<RangeResult> results;
  RangeSession session;

  void synchronize() const { IOSIM_CUDA_CHECK(cudaDeviceSynchronize()); }
  /// Stop, decode and evaluate into `results`.
  void collect();
};

RangeProfiler::RangeProfiler(std::vector<std::string> metrics, std::size_t max_ranges) {
  cupti::throw_if_disabled();
  if (metrics.empty()) {
    throw ProfilerError("RangeProfiler: no metrics given");
  }
  if (max_ranges == 0) {
    throw ProfilerError("RangeProfiler: max_ranges must be at least 1");
  }
  const CUcontext ctx = cupti::current_context();
  state_ = std::make_unique<State>();
  State& s = *state_;
  s.metrics = std::move(metrics);
  s.metric_names = cupti::c_strings(s.metrics);
  s.max_ranges = max_ranges;
  cupti::ensure_profiler_initialized();
  s.chip = cupti::chip_name(cupti::current_device());
  s.availability = cupti::read_counter_availability(ctx);

  s.host.open(s.chip, s.availability);
  for (const std::string& m : s.metrics) {
    if (!s.host.supports(m)) {
      throw ProfilerError("metric " + m + " is not supported on " + s.chip);
    }
  }
  s.config = s.host.config_image(s.metric_names);
  s.passes = cupti::passes_of(s.config);
  if (s.passes != 1) {
    throw ProfilerError("the metric set needs " + std::to_string(s.passes) + " passes on " + s.chip +
                        ", the in-process profiler collects one: " + cupti::joined(s.metrics, ", "));
  }

  s.session.enable(ctx);
  s.counter_data = s.session.counter_data_image(s.metric_names, s.max_ranges);
  s.session.set_config(s.config, s.counter_data, s.max_ranges);
}

RangeProfiler::~RangeProfiler() = default;

void RangeProfiler::begin_range(const std::string& name) {
  State& s = *state_;
  if (s.finished) {
    throw std::logic_error("RangeProfiler::begin_range after results(): use a new RangeProfiler per measurement");
  }
  if (s.session.range_open()) {
    throw std::logic_error("RangeProfiler::begin_range('" + name + "'): range '" + s.range_names.back() +
                           "' is still open (ranges do not nest)");
  }
  if (s.range_names.size() >= s.max_ranges) {
    throw std::logic_error("RangeProfiler::begin_range('" + name + "'): already " + std::to_string(s.max_ranges) +
                           " ranges, the most this profiler was built for");
  }
  s.synchronize();  // work issued before the range stays out of it
  if (!s.session.started()) {
    s.session.start();
  }
  s.range_names.push_back(name);
  s.session.push(s.range_names.back().c_str());
}

void RangeProfiler::end_range() {
  State& s = *state_;
  if (!s.session.range_open()) {
    throw std::logic_error("RangeProfiler::end_range: no range is open");
  }
  s.synchronize();  // the range's work, on every stream, is complete before it closes
  s.session.pop();
}

std::vector<RangeResult> RangeProfiler::results() {
  State& s = *state_;
  if (!s.failure.empty()) {
    throw ProfilerError(s.failure);
  }
  if (s.finished) {
    return s.results;
  }
  if (s.session.range_open()) {
    throw std::logic_error("RangeProfiler::results: range '" + s.range_names.back() + "' is still open");
  }
  try {
    if (s.session.started()) {
      s.collect();
    }
  } catch (const std::exception& e) {
    s.failure = e.what();
    throw;
  }
  s.finished = true;
  return s.results;
}

void RangeProfiler::State::collect() {
  synchronize();
  if (!session.stop()) {
    throw ProfilerError("cuptiRangeProfilerStop: not every pass was submitted; the configuration needs more than one");
  }
  const std::size_t dropped = session.decode();
  if (dropped != 0) {
    throw ProfilerError("cuptiRangeProfilerDecodeData dropped " + std::to_string(dropped) + " range(s) of " +
                        std::to_string(range_names.size()));
  }

  auto info = IOSIM_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params);
  info.pCounterDataImage = counter_data.data();
  info.counterDataImageSize = counter_data.size();
  IOSIM_CUPTI(cuptiRangeProfilerGetCounterDataInfo, info);

  std::vector<double> values(metrics.size(), 0.0);
  for (std::size_t range = 0; range < info.numTotalRanges; ++range) {
    auto range_info = IOSIM_CUPTI_PARAMS(CUpti_RangeProfiler_CounterData_GetRangeInfo_Params);
    range_info.pCounterDataImage = counter_data.data();
    range_info.counterDataImageSize = counter_data.size();
    range_info.rangeIndex = range;
    range_info.rangeDelimiter = "/";
    IOSIM_CUPTI(cuptiRangeProfilerCounterDataGetRangeInfo, range_info);

    auto eval = IOSIM_CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
    eval.pHostObject = host.get();
    eval.pCounterDataImage = counter_data.data();
    eval.counterDataImageSize = counter_data.size();
    eval.rangeIndex = range;
    eval.ppMetricNames = metric_names.data();
    eval.numMetrics = metric_names.size();
    eval.pMetricValues = values.data();
    IOSIM_CUPTI(cuptiProfilerHostEvaluateToGpuValues, eval);

    RangeResult r;
    r.name = range_info.rangeName != nullptr ? range_info.rangeName : "";
    for (std::size_t i = 0; i < metrics.size(); ++i) {
      r.values[metrics[i]] = values[i];
    }
    results.push_back(std::move(r));
  }
}

const std::string& RangeProfiler::chip() const { return state_->chip; }
const std::vector<std::string>& RangeProfiler::metrics() const { return state_->metrics; }
std::size_t RangeProfiler::passes() const { return state_->passes; }

}  // namespace iosim::gpu
