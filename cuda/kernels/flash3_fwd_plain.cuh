// The kernel menu's descriptor of flash3's plain-order forward (flash3_fwd_plain in
// cuda/kernels/menu.csv): flash3_fwd.cuh's, without FA3's overlap; flash3_check's comparison only.
#pragma once

#include "cuda/kernels/flash3_fwd.cuh"

namespace iosim::gpu::detail {

using Flash3FwdPlainKernel = Flash3FwdDescriptor<false>;

}  // namespace iosim::gpu::detail
