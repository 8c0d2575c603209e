// The family of flashdecode's split kernel, which dtiled's family derives from (dtiled/families.cpp).
#pragma once

#include "sim/schedule/kernel_family.h"

namespace iosim::detail {

/// fa2-fwd-split: FlashAttention-2's forward over a slice of K/V (flashdecode/families.cpp).
[[nodiscard]] KernelFamily fa2_fwd_split_family();

}  // namespace iosim::detail
