// flashdecode's kernel family (kernel_family.h): its split kernel, described as FlashAttention-2's
// forward. How it was fitted: kernel_family.cpp.
#include <vector>

#include "sim/schedule/flash2/fa2_constants.h"
#include "sim/schedule/flashdecode/split_family.h"
#include "sim/schedule/kernel_family.h"

namespace iosim::detail {

// Split-KV decoding and the d-tiled schedule have no kernel in cuda/: described as FlashAttention-2
// forwards (the split kernel is one, over a slice of K/V; dtiled reads Q and K by slices of d from
// shared memory: dtiled/families.cpp), with fa2-fwd's registers and waits and its one-stage overhead
// (they run one stage).
KernelFamily fa2_fwd_split_family() {
  return KernelFamily{.name = "fa2-fwd-split",
                      .source = "flash-attention's flash_fwd_splitkv_kernel (no iosim kernel)",
                      .matmuls = {kRowsRegShared, kRowsRegShared},
                      .shuffle_rounds_per_step = 2,
                      .barriers_per_step = 2,
                      .loads_pipelined = true,
                      .base_registers = kFa2FwdRegisters.base,
                      .per_fragment = kFa2FwdRegisters.per_fragment,
                      .overlap = Overlap::simulated,
                      .overhead = kFa2FwdOneStageOverhead,
                      .waits = kFa2FwdWaits};
}

std::vector<KernelFamily> flashdecode_families() { return {fa2_fwd_split_family()}; }

}  // namespace iosim::detail
