// `--kernels triton`: the compiled records of the project's Triton kernels (python/iosim/triton), one
// process for all the configurations a command needs: `python3 -m iosim.triton.batch`, which reads its
// disk cache and compiles the rest for sm_90 on the CPU. The records go to the model as data
// (KernelRequest::compiled, TileSearchSpec::compiled).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/dtype.h"
#include "sim/schedule/compiled_kernel.h"

namespace iosim::cli {

/// One configuration of the Triton forward (attn_fwd) to compile.
struct TritonConfig {
  std::uint64_t block_m = 0, block_n = 0, head_dim = 0;
  bool causal = false;
  std::uint32_t warps = 4, stages = 3;
  DType dtype = DType::fp16;
};

/// The record of every config, in order. Throws InputError (one line) where the interpreter, the iosim
/// package or Triton is missing, the driver fails, or a record cannot be read; a config that does not
/// compile is a record with its error (CompiledKernel::error), not an exception. The interpreter is
/// $IOSIM_PYTHON (default python3); the iosim package is searched on $PYTHONPATH after this build's
/// python folder.
[[nodiscard]] std::vector<std::shared_ptr<const CompiledKernel>> triton_records(const std::vector<TritonConfig>& configs);

}  // namespace iosim::cli
