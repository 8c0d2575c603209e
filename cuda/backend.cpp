// measure(): the harness that runs one KernelSpec under the profiler and under CUDA events.
// Written once the profiler (cuda/profiler) and the kernels (cuda/kernels) exist.
#include <stdexcept>

#include "cuda/backend.h"

namespace iosim::gpu {

Measurement measure(const KernelSpec&, const MeasureOptions&) {
  throw std::runtime_error("measure: not implemented yet");
}

}  // namespace iosim::gpu
