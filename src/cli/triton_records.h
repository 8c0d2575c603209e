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
#include "sim/schedule/schedule.h"

namespace iosim::cli {

/// One configuration of one Triton kernel to compile.
struct TritonConfig {
  std::uint64_t block_m = 0, block_n = 0, head_dim = 0;
  bool causal = false;
  std::uint32_t warps = 4, stages = 3;
  DType dtype = DType::fp16;
  std::string kernel = "attn_fwd";  ///< python/iosim/triton/kernels.py's name
};

/// The configs of a pass's kernels at one tile configuration (`c`'s kernel ignored): the forward's
/// attn_fwd; the backward's attn_bwd_preprocess (BLOCK_M only, launched with Triton's default 4 warps and
/// 3 stages, as launch.py does: block_n, causal, warps and stages fixed so that its record is shared),
/// attn_bwd_dkdv and attn_bwd_dq.
[[nodiscard]] inline std::vector<TritonConfig> triton_pass_configs(Pass pass, const TritonConfig& c) {
  if (pass == Pass::fwd) {
    TritonConfig f = c;
    f.kernel = "attn_fwd";
    return {f};
  }
  TritonConfig pre = c, dkdv = c, dq = c;
  pre.kernel = "attn_bwd_preprocess";
  pre.block_n = c.block_m;
  pre.causal = false;
  pre.warps = 4;
  pre.stages = 3;
  dkdv.kernel = "attn_bwd_dkdv";
  dq.kernel = "attn_bwd_dq";
  return {pre, dkdv, dq};
}

/// The record of every config, in order. Throws InputError (one line) where the interpreter, the iosim
/// package or Triton is missing, the driver fails, or a record cannot be read; a config that does not
/// compile is a record with its error (CompiledKernel::error), not an exception. The interpreter is
/// $IOSIM_PYTHON (default python3); the iosim package is searched on $PYTHONPATH after this build's
/// python folder.
[[nodiscard]] std::vector<std::shared_ptr<const CompiledKernel>> triton_records(const std::vector<TritonConfig>& configs);

}  // namespace iosim::cli
