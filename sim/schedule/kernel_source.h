// Whose compiled kernels run a schedule: the time model describes each of its kernels by that
// implementation's kernel family (kernel_family.h; the registry lists which kernels each has).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace iosim {

enum class KernelSource : std::uint8_t {
  iosim,    ///< cuda/kernels, the kernels `iosim measure` runs
  pytorch,  ///< PyTorch's scaled_dot_product_attention, flash backend (FlashAttention-2's CUDA kernels)
  triton,   ///< the project's Triton kernels (python/iosim/triton), priced from their compiled records
};

[[nodiscard]] constexpr std::string_view name(KernelSource s) {
  switch (s) {
    case KernelSource::iosim: return "iosim";
    case KernelSource::pytorch: return "pytorch";
    case KernelSource::triton: return "triton";
  }
  return "iosim";
}

[[nodiscard]] constexpr std::optional<KernelSource> kernel_source(std::string_view text) {
  if (text == "iosim") return KernelSource::iosim;
  if (text == "pytorch") return KernelSource::pytorch;
  if (text == "triton") return KernelSource::triton;
  return std::nullopt;
}

}  // namespace iosim
