// available() and device_info(): what GPU, if any, this process sees.
#include <cuda_runtime.h>

#include "cuda/backend.h"
#include "cuda/runtime/check.h"

namespace iosim::gpu {

bool available(std::string* why) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    if (why != nullptr) {
      *why = err != cudaSuccess ? std::string("no CUDA GPU is visible (") + cudaGetErrorString(err) + ")"
                                : std::string("no CUDA GPU is visible");
    }
    return false;
  }
  return true;
}

DeviceInfo device_info() {
  cudaDeviceProp p{};
  IOSIM_CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
  int optin = 0;
  IOSIM_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  DeviceInfo d;
  d.name = p.name;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.l2_bytes = static_cast<std::uint64_t>(p.l2CacheSize);
  d.smem_per_sm = p.sharedMemPerMultiprocessor;
  d.smem_per_block_optin = static_cast<std::uint64_t>(optin);
  d.global_bytes = p.totalGlobalMem;
  return d;
}

}  // namespace iosim::gpu
