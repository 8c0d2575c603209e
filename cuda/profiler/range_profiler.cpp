// RangeProfiler and the metric-set planner on CUPTI's Range Profiling API (CUDA 13.0).
//
// Call sequence, after NVIDIA's CUPTI sample range_profiling (range_profiling.cu and its helper
// header), with user ranges and user replay:
//   construction   cuptiProfilerInitialize (process-wide, reference counted here)
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
//                  cuptiProfilerDeInitialize (when the last user lets go)
#include "cuda/profiler/range_profiler.h"

#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

#include <atomic>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <string_view>
#include <utility>

#include "cuda/runtime/check.h"

namespace iosim::gpu {
namespace {

constexpr const char* kDisableVariable = "IOSIM_NO_PROFILER";

// ---- Checking ---------------------------------------------------------------------------------

std::string cupti_text(CUptiResult result) {
  const char* name = nullptr;
  const char* message = nullptr;
  std::string text;
  if (cuptiGetResultString(result, &name) == CUPTI_SUCCESS && name != nullptr) {
    text = name;
  } else {
    text = "CUPTI error " + std::to_string(static_cast<int>(result));
  }
  if (cuptiGetErrorMessage(result, &message) == CUPTI_SUCCESS && message != nullptr && *message != '\0') {
    text += std::string(" (") + message + ")";
  }
  return text;
}

/// What to do about the errors a user can fix.
std::string_view hint(CUptiResult result) {
  switch (result) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return "; counter access needs root or the nvidia module option NVreg_RestrictProfilingToAdminUsers=0";
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    case CUPTI_ERROR_HARDWARE_BUSY:
    case CUPTI_ERROR_DISABLED:
      return "; another profiling client (ncu, nsys, a second profiler) holds the counters: set IOSIM_NO_PROFILER=1 "
             "to run without in-process counters";
    case CUPTI_ERROR_NOT_INITIALIZED:
      return "; libcupti could not load libnvperf_host.so / libnvperf_target.so: put the CUDA library directory "
             "on LD_LIBRARY_PATH";
    default:
      return "";
  }
}

void check_cupti(CUptiResult result, const char* call) {
  if (result != CUPTI_SUCCESS) {
    throw ProfilerError(std::string(call) + " failed: " + cupti_text(result) + std::string(hint(result)));
  }
}

void check_driver(CUresult result, const char* call) {
  if (result != CUDA_SUCCESS) {
    const char* name = nullptr;
    const char* message = nullptr;
    (void)cuGetErrorName(result, &name);
    (void)cuGetErrorString(result, &message);
    throw ProfilerError(std::string(call) + " failed: " + (name != nullptr ? name : "CUDA driver error") + " (" +
                        (message != nullptr ? message : "") + ")");
  }
}

/// CUPTI parameter structs: zeroed, with structSize set (which selects the struct's version).
template <typename Params>
Params cupti_params(std::size_t struct_size) {
  Params p{};
  p.structSize = struct_size;
  return p;
}

}  // namespace
}  // namespace iosim::gpu

#define IOSIM_CUPTI_PARAMS(Type) ::iosim::gpu::cupti_params<Type>(Type##_STRUCT_SIZE)
#define IOSIM_CUPTI(fn, params) ::iosim::gpu::check_cupti(fn(&(params)), #fn)
#define IOSIM_CU(call) ::iosim::gpu::check_driver((call), #call)

namespace iosim::gpu {
namespace {

// ---- Small owners -----------------------------------------------------------------------------

/// Bytes with 8-byte alignment, as CUPTI asks of its config and counter-data images.
class AlignedBytes {
 public:
  AlignedBytes() = default;
  explicit AlignedBytes(std::size_t bytes) : words_((bytes + 7) / 8, 0), bytes_(bytes) {}
  [[nodiscard]] std::uint8_t* data() { return reinterpret_cast<std::uint8_t*>(words_.data()); }
  [[nodiscard]] const std::uint8_t* data() const { return reinterpret_cast<const std::uint8_t*>(words_.data()); }
  [[nodiscard]] std::size_t size() const { return bytes_; }

 private:
  std::vector<std::uint64_t> words_;
  std::size_t bytes_ = 0;
};

/// cuptiProfilerInitialize on the first holder in the process, cuptiProfilerDeInitialize when the
/// last one lets go.
class ProfilerInit {
 public:
  ProfilerInit() {
    const std::lock_guard<std::mutex> lock(mutex());
    if (count() == 0) {
      auto p = IOSIM_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params);
      IOSIM_CUPTI(cuptiProfilerInitialize, p);
    }
    ++count();
  }
  ~ProfilerInit() {
    const std::lock_guard<std::mutex> lock(mutex());
    if (--count() == 0) {
      auto p = IOSIM_CUPTI_PARAMS(CUpti_Profiler_DeInitialize_Params);
      (void)cuptiProfilerDeInitialize(&p);
    }
  }
  ProfilerInit(const ProfilerInit&) = delete;
  ProfilerInit& operator=(const ProfilerInit&) = delete;

 private:
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static int& count() {
    static int n = 0;
    return n;
  }
};

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

/// A Profiler Host API object for one chip: metric properties, config images, evaluation.
class HostObject {
 public:
  HostObject() = default;
  HostObject(const std::string& chip, std::span<const std::uint8_t> availability) { open(chip, availability); }
  ~HostObject() {
    if (object_ != nullptr) {
      auto p = IOSIM_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
      p.pHostObject = object_;
      (void)cuptiProfilerHostDeinitialize(&p);
    }
  }
  HostObject(const HostObject&) = delete;
  HostObject& operator=(const HostObject&) = delete;

  /// `chip` and `availability` must outlive this object.
  void open(const std::string& chip, std::span<const std::uint8_t> availability) {
    auto p = IOSIM_CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params);
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = chip.c_str();
    p.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
    IOSIM_CUPTI(cuptiProfilerHostInitialize, p);
    object_ = p.pHostObject;
  }

  [[nodiscard]] CUpti_Profiler_Host_Object* get() const { return object_; }

  /// False when the chip has no metric of that name; throws on any other failure.
  [[nodiscard]] bool supports(const std::string& metric) const {
    auto p = IOSIM_CUPTI_PARAMS(CUpti_Profiler_Host_GetMetricProperties_Params);
    p.pHostObject = object_;
    p.pMetricName = metric.c_str();
    const CUptiResult result = cuptiProfilerHostGetMetricProperties(&p);
    if (result == CUPTI_ERROR_INVALID_METRIC_NAME) {
      return false;
    }
    check_cupti(result, "cuptiProfilerHostGetMetricProperties");
    return true;
  }

  /// Adds `metrics` to this object's configuration and returns the config image. Once per object:
  /// CUPTI accumulates added metrics.
  [[nodiscard]] AlignedBytes config_image(std::vector<const char*>& metrics) const {
    auto add = IOSIM_CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
    add.pHostObject = object_;
    add.ppMetricNames = metrics.data();
    add.numMetrics = metrics.size();
    IOSIM_CUPTI(cuptiProfilerHostConfigAddMetrics, add);

    auto size = IOSIM_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params);
    size.pHostObject = object_;
    IOSIM_CUPTI(cuptiProfilerHostGetConfigImageSize, size);

    AlignedBytes image(size.configImageSize);
    auto get = IOSIM_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params);
    get.pHostObject = object_;
    get.configImageSize = image.size();
    get.pConfigImage = image.data();
    IOSIM_CUPTI(cuptiProfilerHostGetConfigImage, get);
    return image;
  }

 private:
  CUpti_Profiler_Host_Object* object_ = nullptr;
};

std::size_t passes_of(AlignedBytes& config_image) {
  auto p = IOSIM_CUPTI_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params);
  p.configImageSize = config_image.size();
  p.pConfigImage = config_image.data();
  IOSIM_CUPTI(cuptiProfilerHostGetNumOfPasses, p);
  return p.numOfPasses;
}

std::vector<const char*> c_strings(const std::vector<std::string>& names) {
  std::vector<const char*> out;
  out.reserve(names.size());
  for (const std::string& n : names) {
    out.push_back(n.c_str());
  }
  return out;
}

std::string joined(const std::vector<std::string>& names, std::string_view separator) {
  std::string out;
  for (const std::string& n : names) {
    if (!out.empty()) {
      out += separator;
    }
    out += n;
  }
  return out;
}

void throw_if_disabled() {
  const std::string why = profiler_disabled_reason();
  if (!why.empty()) {
    throw ProfilerError(why);
  }
}

/// The current context, the runtime's primary context being created if there is none.
CUcontext current_context() {
  IOSIM_CUDA_CHECK(cudaFree(nullptr));
  CUcontext ctx = nullptr;
  IOSIM_CU(cuCtxGetCurrent(&ctx));
  if (ctx == nullptr) {
    throw ProfilerError("no current CUDA context");
  }
  return ctx;
}

/// The ordinal of the current context's device (CUPTI's deviceIndex).
int current_device() {
  CUdevice device = 0;
  IOSIM_CU(cuCtxGetDevice(&device));
  return static_cast<int>(device);
}

std::string chip_name(int ordinal) {
  auto p = IOSIM_CUPTI_PARAMS(CUpti_Device_GetChipName_Params);
  p.deviceIndex = static_cast<std::size_t>(ordinal);
  IOSIM_CUPTI(cuptiDeviceGetChipName, p);
  if (p.pChipName == nullptr) {
    throw ProfilerError("cuptiDeviceGetChipName returned no chip name for device " + std::to_string(ordinal));
  }
  return p.pChipName;
}

std::vector<std::uint8_t> read_counter_availability(CUcontext ctx) {
  auto p = IOSIM_CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params);
  p.ctx = ctx;
  p.pCounterAvailabilityImage = nullptr;  // first call: the size
  IOSIM_CUPTI(cuptiProfilerGetCounterAvailability, p);
  std::vector<std::uint8_t> image(p.counterAvailabilityImageSize, 0);
  p.pCounterAvailabilityImage = image.data();
  IOSIM_CUPTI(cuptiProfilerGetCounterAvailability, p);
  image.resize(p.counterAvailabilityImageSize);
  return image;
}

/// Tensor-op metrics for inputs of `dtype`, in order of preference; each alternative is a list of
/// metrics whose sum is the count (names differ per chip: see iosim_metric_set in the header).
std::vector<std::vector<std::string>> tensor_alternatives(DType dtype) {
  switch (dtype) {
    case DType::fp16:
      return {{"sm__ops_path_tensor_src_fp16_dst_fp32.sum"},  // GA100
              {"sm__ops_path_tensor_src_fp16.sum"},           // GH100 (two passes with CUDA 13.0)
              {"sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32.sum",  // GH100, one pass
               "sm__ops_path_tensor_op_hgmma_src_fp16.sum"}};
    case DType::bf16:
      return {{"sm__ops_path_tensor_src_bf16_dst_fp32.sum"},
              {"sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32.sum", "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum"}};
    case DType::fp8:
      return {{"sm__ops_path_tensor_src_fp8.sum"}};
    case DType::fp32:
      return {{"sm__ops_path_tensor_src_tf32_dst_fp32.sum"}};  // fp32 inputs reach tensor cores as tf32
  }
  return {};
}

}  // namespace

// ---- Free functions ---------------------------------------------------------------------------

std::string profiler_disabled_reason() {
  if (std::getenv(kDisableVariable) != nullptr) {
    return std::string(kDisableVariable) + " is set: the in-process profiler is off";
  }
  return {};
}

ProfilerDevice current_profiler_device() {
  throw_if_disabled();
  const CUcontext ctx = current_context();
  const ProfilerInit init;
  ProfilerDevice d;
  d.ordinal = current_device();
  d.chip = chip_name(d.ordinal);
  d.counter_availability = read_counter_availability(ctx);
  return d;
}

std::size_t count_passes(const std::string& chip, const std::vector<std::string>& metrics,
                         std::span<const std::uint8_t> counter_availability) {
  if (metrics.empty()) {
    return 0;
  }
  const HostObject host(chip, counter_availability);
  for (const std::string& m : metrics) {
    if (!host.supports(m)) {
      throw ProfilerError("metric " + m + " is not supported on " + chip);
    }
  }
  std::vector<const char*> names = c_strings(metrics);
  AlignedBytes image = host.config_image(names);
  return passes_of(image);
}

MetricSet iosim_metric_set(const std::string& chip, DType dtype, std::span<const std::uint8_t> counter_availability) {
  static const std::vector<std::string> kMemoryMetrics = {
      metric::dram_read,       metric::dram_write,         metric::l2_read_sectors,    metric::l2_write_sectors,
      metric::l2_atom_sectors, metric::l2_red_sectors,     metric::smem_ld_wavefronts, metric::smem_st_wavefronts};

  MetricSet set;
  set.chip = chip;
  const HostObject probe(chip, counter_availability);
  const auto fits = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> trial = set.metrics;
    trial.insert(trial.end(), extra.begin(), extra.end());
    return count_passes(chip, trial, counter_availability) == 1;
  };

  for (const std::string& m : kMemoryMetrics) {
    if (!probe.supports(m)) {
      set.dropped.push_back(m + ": not a metric of " + chip);
    } else if (!fits({m})) {
      set.dropped.push_back(m + ": would need a second pass with the metrics kept before it");
    } else {
      set.metrics.push_back(m);
    }
  }

  std::vector<std::string> tried;
  for (const std::vector<std::string>& alternative : tensor_alternatives(dtype)) {
    const std::string sum = joined(alternative, " + ");
    bool supported = true;
    for (const std::string& m : alternative) {
      supported = supported && probe.supports(m);
    }
    if (!supported) {
      tried.push_back(sum + " (not a metric of " + chip + ")");
    } else if (!fits(alternative)) {
      tried.push_back(sum + " (would need a second pass)");
    } else {
      set.metrics.insert(set.metrics.end(), alternative.begin(), alternative.end());
      set.tensor_metrics = alternative;
      break;
    }
  }
  if (set.tensor_metrics.empty()) {
    set.dropped.push_back("tensor ops for " + std::string(name(dtype)) + ": none fits; tried " + joined(tried, ", "));
  }
  set.passes = count_passes(chip, set.metrics, counter_availability);
  return set;
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
// object, the images it used, the CUPTI initialisation and last the process slot.
struct RangeProfiler::State {
  ProfilerSlot slot;
  ProfilerInit init;
  CUcontext ctx = nullptr;
  std::string chip;
  std::vector<std::uint8_t> availability;
  std::vector<std::string> metrics;
  std::vector<const char*> metric_names;  // points into `metrics`
  std::size_t max_ranges = 0;
  std::size_t passes = 0;
  HostObject host;
  AlignedBytes config;
  AlignedBytes counter_data;
  std::deque<std::string> range_names;  // stable addresses for the names given to CUPTI
  bool finished = false;
  std::string failure;  // what() of a failed results(), thrown again by later calls
  std::vector<RangeResult> results;
  RangeSession session;

  void synchronize() const { IOSIM_CU(cuCtxSynchronize()); }
  /// Stop, decode and evaluate into `results`.
  void collect();
};

RangeProfiler::RangeProfiler(std::vector<std::string> metrics, std::size_t max_ranges) {
  throw_if_disabled();
  if (metrics.empty()) {
    throw ProfilerError("RangeProfiler: no metrics given");
  }
  if (max_ranges == 0) {
    throw ProfilerError("RangeProfiler: max_ranges must be at least 1");
  }
  const CUcontext ctx = current_context();
  state_ = std::make_unique<State>();
  State& s = *state_;
  s.ctx = ctx;
  s.metrics = std::move(metrics);
  s.metric_names = c_strings(s.metrics);
  s.max_ranges = max_ranges;
  s.chip = chip_name(current_device());
  s.availability = read_counter_availability(ctx);

  s.host.open(s.chip, s.availability);
  for (const std::string& m : s.metrics) {
    if (!s.host.supports(m)) {
      throw ProfilerError("metric " + m + " is not supported on " + s.chip);
    }
  }
  s.config = s.host.config_image(s.metric_names);
  s.passes = passes_of(s.config);
  if (s.passes != 1) {
    throw ProfilerError("the metric set needs " + std::to_string(s.passes) + " passes on " + s.chip +
                        ", the in-process profiler collects one: " + joined(s.metrics, ", "));
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
