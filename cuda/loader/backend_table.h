// The one entry point of the GPU module (libiosim_gpu.so): a table of pointers to the functions of
// cuda/backend.h. The iosim program opens the module with dlopen only when a command needs the GPU
// (cuda/loader/loader.cpp) so that cuBLAS, cuBLASLt and CUPTI are not loaded by every run.
//
// A function added to backend.h needs its line here, in module_entry.cpp and in loader.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cuda/backend.h"

namespace iosim::gpu {

/// Bumped when the table's order or signatures change.
inline constexpr std::uint32_t kBackendAbi = 4;

struct BackendTable {
  std::uint32_t abi = 0;
  std::size_t table_size = 0;   ///< sizeof(BackendTable) in the module
  std::uint64_t layout = 0;     ///< backend_layout() in the module: the structs' sizes
  bool (*available)(std::string* why) = nullptr;
  DeviceInfo (*device_info)() = nullptr;
  std::vector<std::pair<int, int>> (*compiled_tiles)(std::string_view, Direction, int, DType) = nullptr;
  std::vector<KernelVariant> (*compiled_variants)(std::string_view, Direction, int, DType) = nullptr;
  KernelShape (*kernel_shape)(const KernelSpec&) = nullptr;
  std::string (*unsupported)(const KernelSpec&) = nullptr;
  std::string (*unsupported_in_build)(const KernelSpec&) = nullptr;
  std::vector<Accuracy> (*check_accuracy)(const KernelSpec&, std::uint64_t) = nullptr;
  Measurement (*measure)(const KernelSpec&, const MeasureOptions&) = nullptr;
  Ceilings (*measure_ceilings)() = nullptr;
  PipelineSpec (*measure_pipeline)() = nullptr;
};

/// A fingerprint of the structs that cross the boundary: a module built from other sources than the
/// program (a struct grew a field) is refused instead of corrupting memory.
[[nodiscard]] constexpr std::uint64_t backend_layout() {
  std::uint64_t h = 1469598103934665603ULL;
  for (const std::size_t s : {sizeof(DeviceInfo), sizeof(KernelSpec), sizeof(KernelShape), sizeof(Accuracy),
                              sizeof(Counters), sizeof(Timing), sizeof(MeasureOptions), sizeof(Measurement),
                              sizeof(Ceilings), sizeof(KernelVariant), sizeof(PipelineSpec),
                              sizeof(BackendTable)}) {
    h = (h ^ s) * 1099511628211ULL;
  }
  return h;
}

}  // namespace iosim::gpu

/// The symbol the program looks up with dlsym; the only one the module exports (module.map).
extern "C" const iosim::gpu::BackendTable* iosim_gpu_backend();
