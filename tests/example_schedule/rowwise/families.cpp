// rowwise's kernel family (kernel_family.h): what the time model prices its kernel as.
#include <vector>

#include "sim/schedule/flashdecode/split_family.h"
#include "sim/schedule/kernel_family.h"

namespace iosim::example {

// No iosim CUDA kernel runs it: described as flashdecode's split kernel, a FlashAttention-2 forward with
// its registers, waits and one stage, whose two products both read their operands from shared memory
// (Q_i and K_j; P_i, which S_i holds, and V_j).
std::vector<KernelFamily> rowwise_families() {
  KernelFamily rowwise = detail::fa2_fwd_split_family();
  rowwise.name = "rowwise";
  rowwise.source = "model only: the example schedule of docs/adding-a-schedule.md (no iosim kernel)";
  rowwise.matmuls = {kRowsSharedShared, kRowsSharedShared};
  return {rowwise};
}

}  // namespace iosim::example
