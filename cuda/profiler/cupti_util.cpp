// Checked CUPTI calls and the small owners of cupti_util.h.
#include "cuda/profiler/cupti_util.h"

#include <cuda_runtime.h>

#include <cstdlib>
#include <mutex>

#include "cuda/runtime/check.h"

namespace iosim::gpu::cupti {
namespace {

std::string result_text(CUptiResult result) {
  const char* name = nullptr;
  const char* message = nullptr;
  std::string text;
  if (cuptiGetResultString(result, &name) == CUPTI_SUCCESS && name != nullptr) {
    text = name;
  } else {
    text = "CUPTI error " + std::to_string(static_cast<int>(result));
  }
  if (cuptiGetErrorMessage(result, &message) == CUPTI_SUCCESS && message != nullptr && *message != '\0' &&
      text != message) {
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

}  // namespace

void check(CUptiResult result, const char* call) {
  if (result != CUPTI_SUCCESS) {
    throw ProfilerError(std::string(call) + " failed: " + result_text(result) + std::string(hint(result)));
  }
}

void check_driver(CUresult result, const char* call) {
  if (result != CUDA_SUCCESS) {
    throw ProfilerError(std::string(call) + " failed: CUDA driver error " + std::to_string(static_cast<int>(result)));
  }
}

HostObject::~HostObject() {
  if (object_ != nullptr) {
    auto p = IOSIM_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
    p.pHostObject = object_;
    (void)cuptiProfilerHostDeinitialize(&p);
  }
}

void HostObject::open(const std::string& chip, std::span<const std::uint8_t> availability) {
  auto p = IOSIM_CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params);
  p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  p.pChipName = chip.c_str();
  p.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
  IOSIM_CUPTI(cuptiProfilerHostInitialize, p);
  object_ = p.pHostObject;
}

bool HostObject::supports(const std::string& metric) const {
  auto p = IOSIM_CUPTI_PARAMS(CUpti_Profiler_Host_GetMetricProperties_Params);
  p.pHostObject = object_;
  p.pMetricName = metric.c_str();
  const CUptiResult result = cuptiProfilerHostGetMetricProperties(&p);
  if (result == CUPTI_ERROR_INVALID_METRIC_NAME) {
    return false;
  }
  check(result, "cuptiProfilerHostGetMetricProperties");
  return true;
}

AlignedBytes HostObject::config_image(std::vector<const char*>& metrics) const {
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

std::size_t passes_of(AlignedBytes& config_image) {
  auto p = IOSIM_CUPTI_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params);
  p.configImageSize = config_image.size();
  p.pConfigImage = config_image.data();
  IOSIM_CUPTI(cuptiProfilerHostGetNumOfPasses, p);
  return p.numOfPasses;
}

// Like NVIDIA's sample, which never calls cuptiProfilerDeInitialize, iosim leaves CUPTI initialised
// until the process exits: initialising again after a DeInitialize is a path the sample does not show.
void ensure_profiler_initialized() {
  static std::mutex mutex;
  static bool initialized = false;
  const std::lock_guard<std::mutex> lock(mutex);
  if (!initialized) {
    auto p = IOSIM_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params);
    IOSIM_CUPTI(cuptiProfilerInitialize, p);
    initialized = true;
  }
}

void throw_if_disabled() {
  const std::string why = profiler_disabled_reason();
  if (!why.empty()) {
    throw ProfilerError(why);
  }
}

CUcontext current_context() {
  IOSIM_CUDA_CHECK(cudaFree(nullptr));  // makes the runtime's primary context current
  // The driver entry point comes through the runtime, which loads libcuda itself: iosim does not
  // link libcuda.so.1, so it starts on machines without a driver (CI) and says there is no GPU.
  using GetCurrent = CUresult (*)(CUcontext*);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  IOSIM_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &found));
  if (found != cudaDriverEntryPointSuccess || fn == nullptr) throw ProfilerError("cuCtxGetCurrent not found in the driver");
  CUcontext ctx = nullptr;
  IOSIM_CU(reinterpret_cast<GetCurrent>(fn)(&ctx));
  if (ctx == nullptr) {
    throw ProfilerError("no current CUDA context");
  }
  return ctx;
}

int current_device() {
  int device = 0;
  IOSIM_CUDA_CHECK(cudaGetDevice(&device));
  return device;
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

}  // namespace iosim::gpu::cupti
