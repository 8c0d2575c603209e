// Which kernels of the CUDA backend run a schedule: what a registry entry (sim/schedule/registry.h)
// names and cuda/backend.h's KernelSpec takes (gpu::Algo is this type). Plain data, no CUDA.
#pragma once

#include <cstdint>
#include <string_view>

namespace iosim {

/// flashdecode: split-KV decoding, a group's query heads packed as one block's rows; flashdecode_heads:
/// the same kernels with one block row set per query head (sim/schedule/flashdecode/flashdecode.cpp); flash3: the
/// FlashAttention-3 forward for sm_90a (cuda/kernels/flash3/; forward only, where the build has it).
enum class CudaAlgo : std::uint8_t { naive, flash1, flash2, flashdecode, flashdecode_heads, flash3 };

/// The name of the schedule whose registry entry names these kernels, as the CLI spells it.
[[nodiscard]] std::string_view name(CudaAlgo a);

}  // namespace iosim
