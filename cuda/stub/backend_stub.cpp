// The backend of a build without CUDA: nothing is available, and every call says so.
#include <stdexcept>

#include "cuda/backend.h"

namespace iosim::gpu {

namespace {
constexpr const char* kNoBackend =
    "this iosim was built without the CUDA backend (IOSIM_CUDA=OFF, or no nvcc at configure time)";
}

bool available(std::string* why) {
  if (why != nullptr) *why = kNoBackend;
  return false;
}

DeviceInfo device_info() { throw std::runtime_error(kNoBackend); }

std::vector<std::pair<int, int>> compiled_tiles(std::string_view, Direction, int, DType) { return {}; }

std::vector<KernelVariant> compiled_variants(std::string_view, Direction, int, DType) { return {}; }

std::string unsupported(const KernelSpec&) { return kNoBackend; }

// Nothing to refuse of a build that has no backend: available() says so (`measure needs a CUDA GPU: …`).
std::string unsupported_in_build(const KernelSpec&) { return ""; }

KernelShape kernel_shape(const KernelSpec&) { return {}; }

std::vector<Accuracy> check_accuracy(const KernelSpec&, std::uint64_t) { throw std::runtime_error(kNoBackend); }

Measurement measure(const KernelSpec&, const MeasureOptions&) { throw std::runtime_error(kNoBackend); }

Ceilings measure_ceilings() { throw std::runtime_error(kNoBackend); }

PipelineSpec measure_pipeline() { throw std::runtime_error(kNoBackend); }

}  // namespace iosim::gpu
