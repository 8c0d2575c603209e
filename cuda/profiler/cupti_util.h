// Internal to cuda/profiler: checked CUPTI calls and the small owners the profiler is built from.
// Includes the CUPTI headers; only the profiler's .cpp files include it.
#pragma once

#include <cuda.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cuda/profiler/range_profiler.h"

namespace iosim::gpu::cupti {

/// Throws ProfilerError "<call> failed: <CUPTI result string> (<message>)[; what to do]" unless
/// `result` is CUPTI_SUCCESS.
void check(CUptiResult result, const char* call);
/// The same for a CUDA driver call.
void check_driver(CUresult result, const char* call);

/// A CUPTI parameter struct: zeroed, with structSize set (which selects the struct's version).
template <typename Params>
Params params(std::size_t struct_size) {
  Params p{};
  p.structSize = struct_size;
  return p;
}

}  // namespace iosim::gpu::cupti

#define IOSIM_CUPTI_PARAMS(Type) ::iosim::gpu::cupti::params<Type>(Type##_STRUCT_SIZE)
#define IOSIM_CUPTI(fn, p) ::iosim::gpu::cupti::check(fn(&(p)), #fn)
#define IOSIM_CU(call) ::iosim::gpu::cupti::check_driver((call), #call)

namespace iosim::gpu::cupti {

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

/// A Profiler Host API object for one chip (cuptiProfilerHostInitialize … Deinitialize):
/// metric properties, one config image, evaluation.
class HostObject {
 public:
  HostObject() = default;
  HostObject(const std::string& chip, std::span<const std::uint8_t> availability) { open(chip, availability); }
  ~HostObject();
  HostObject(const HostObject&) = delete;
  HostObject& operator=(const HostObject&) = delete;
  HostObject(HostObject&&) = delete;
  HostObject& operator=(HostObject&&) = delete;

  /// Once per object. `chip` and `availability` must outlive it.
  void open(const std::string& chip, std::span<const std::uint8_t> availability);
  [[nodiscard]] CUpti_Profiler_Host_Object* get() const { return object_; }

  /// False when the chip has no metric of that name; throws on any other failure.
  [[nodiscard]] bool supports(const std::string& metric) const;
  /// Adds `metrics` to the configuration and returns the config image. Once per object: CUPTI
  /// accumulates the metrics added.
  [[nodiscard]] AlignedBytes config_image(std::vector<const char*>& metrics) const;

 private:
  CUpti_Profiler_Host_Object* object_ = nullptr;
};

/// cuptiProfilerHostGetNumOfPasses of a config image.
[[nodiscard]] std::size_t passes_of(AlignedBytes& config_image);

/// cuptiProfilerInitialize, once per process (tried again after a failure).
void ensure_profiler_initialized();
/// Throws ProfilerError when profiler_disabled_reason() is not empty.
void throw_if_disabled();

/// The current context, the runtime's primary context being created if there is none.
[[nodiscard]] CUcontext current_context();
/// The ordinal of the current context's device (CUPTI's deviceIndex).
[[nodiscard]] int current_device();
/// cuptiDeviceGetChipName.
[[nodiscard]] std::string chip_name(int ordinal);
/// cuptiProfilerGetCounterAvailability: the size, then the image.
[[nodiscard]] std::vector<std::uint8_t> read_counter_availability(CUcontext ctx);

/// Pointers to the names (valid while `names` is unchanged).
[[nodiscard]] std::vector<const char*> c_strings(const std::vector<std::string>& names);
[[nodiscard]] std::string joined(const std::vector<std::string>& names, std::string_view separator);

}  // namespace iosim::gpu::cupti
