// The program's side of the GPU module: where it is looked for and whether it loaded. The functions
// of cuda/backend.h themselves are defined by loader.cpp, which forwards each to the module.
#pragma once

#include <string>

namespace iosim::gpu {

/// The module's file name, placed next to the iosim binary by the build.
inline constexpr const char* kModuleFile = "libiosim_gpu.so";

/// Where the module is looked for: $IOSIM_GPU_MODULE when set, else libiosim_gpu.so in the directory
/// of the running executable (/proc/self/exe), so a build tree or an installed copy finds its own.
[[nodiscard]] std::string module_path();

/// Opens the module (once per process; later calls return the first answer). Empty when it loaded,
/// else one line naming the file and why it could not be used (missing, a missing CUDA library, a
/// module of another build).
[[nodiscard]] std::string load_module();

}  // namespace iosim::gpu
