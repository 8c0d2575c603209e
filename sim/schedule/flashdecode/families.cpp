// flashdecode's kernel families (kernel_family.h): its split kernel, described as FlashAttention-2's
// forward, and its combine. How they were fitted: kernel_family.cpp.
#include <vector>

#include "sim/schedule/flash2/fa2_constants.h"
#include "sim/schedule/flashdecode/split_family.h"
#include "sim/schedule/kernel_family.h"

namespace iosim::detail {

// The split kernel (cuda/kernels/flashdecode.cuh) runs FlashAttention-2's forward loop over a slice of
// K/V, and its own instructions were never counted by ncu: described with fa2-fwd's registers and
// waits, its one-stage overhead, and what fa2-fwd's loop adds a step when it keeps tiles in flight
// (the menu's decode kernels run 1 to 3 stages). The d-tiled schedule (no kernel in cuda/) takes the
// same family, reading Q and K by slices of d from shared memory (dtiled/families.cpp).
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
                      .overhead = {.per_step = kFa2FwdOneStageOverhead.per_step,
                                   .per_row = kFa2FwdOneStageOverhead.per_row,
                                   .per_column = kFa2FwdOneStageOverhead.per_column,
                                   .per_pipelined_step = kFa2FwdPipelinedStep},
                      .waits = kFa2FwdWaits,
                      .columns_below_rows = 16,
                      .smem_layout = SharedLayout::flashdecode};
}

// The combine kernel is timed as the element-wise family (kernel_family.cpp: no products, loads waited
// for at once, a base of 40 registers), whose layout says it uses no shared memory; this one stages its
// split weights there, counted from its code (sim/timing/decode_wavefronts.h).
KernelFamily flashdecode_combine_family() {
  return KernelFamily{.name = "flashdecode-combine",
                      .source = "cuda/kernels/flashdecode.cuh",
                      .base_registers = 40,
                      .smem_layout = SharedLayout::flashdecode_combine};
}

std::vector<KernelFamily> flashdecode_families() { return {fa2_fwd_split_family(), flashdecode_combine_family()}; }

}  // namespace iosim::detail
