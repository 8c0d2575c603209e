// The registry of compiled kernel instantiations: (algo, pass, d, dtype, B_r, B_c, warps, stages) →
// launcher.
// Each instantiation file (cuda/kernels/inst/*.cu) adds its group's entries in one register_*
// function; kernel_registry() calls them all, explicitly, once. Naive has no entries: cuBLAS picks its
// own tiles (dispatch calls cuda/kernels/naive.h directly).
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <utility>
#include <vector>

#include "cuda/kernels/launch.h"

namespace iosim::gpu::detail {

/// Enqueues every kernel of one schedule's pass (spec's shape, this entry's d, dtype and tile).
using Launcher = void (*)(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream);

struct KernelEntry {
  Algo algo = Algo::flash2;
  Direction pass = Direction::fwd;
  int d = 0;
  DType dtype = DType::fp16;
  int br = 0;
  int bc = 0;
  std::size_t smem_bytes = 0;  ///< dynamic shared memory per block of the pass's main kernel
  Launcher launch = nullptr;
  int warps = 0;   ///< warps per block of the main kernel
  int stages = 1;  ///< copies of the streamed K/V tiles in its shared memory
};

/// Every compiled instantiation; within one (algo, pass, d, dtype) the default tile comes first.
[[nodiscard]] const std::vector<KernelEntry>& kernel_registry();

/// The entry that runs `spec`, or nullptr when its (algo, pass, d, dtype, tile) is not compiled or no
/// entry of it has the warps and stages spec asks for (0: any; the first registered of the tile).
[[nodiscard]] const KernelEntry* find_kernel(const KernelSpec& spec);

/// The tile menu: B_r, B_c ∈ {32, 64, 128, 256}; each family compiles the combinations its traits
/// accept (256 only where it fits the family's registers and shared memory).
inline constexpr std::array<int, 4> kTileMenu = {32, 64, 128, 256};

/// Calls fn.template operator()<BR, BC>() for every (BR, BC) of the menu.
template <class Fn>
void for_each_menu_tile(Fn&& fn) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (fn.template operator()<kTileMenu[I / kTileMenu.size()], kTileMenu[I % kTileMenu.size()]>(), ...);
  }(std::make_index_sequence<kTileMenu.size() * kTileMenu.size()>{});
}

// One function per instantiation file (cuda/kernels/inst/<family>_d<d>_<dtype>[_s<stages>|_altwarps].cu).
void register_flash1_fwd_d64_fp16(std::vector<KernelEntry>& out);
void register_flash1_fwd_d64_bf16(std::vector<KernelEntry>& out);
void register_flash1_fwd_d128_fp16(std::vector<KernelEntry>& out);
void register_flash1_fwd_d128_bf16(std::vector<KernelEntry>& out);
void register_flash1_bwd_d64_fp16(std::vector<KernelEntry>& out);
void register_flash1_bwd_d64_bf16(std::vector<KernelEntry>& out);
void register_flash1_bwd_d128_fp16(std::vector<KernelEntry>& out);
void register_flash1_bwd_d128_bf16(std::vector<KernelEntry>& out);
void register_flash2_fwd_d64_fp16(std::vector<KernelEntry>& out);
void register_flash2_fwd_d64_fp16_s1(std::vector<KernelEntry>& out);
void register_flash2_fwd_d64_fp16_s3(std::vector<KernelEntry>& out);
void register_flash2_fwd_d64_bf16(std::vector<KernelEntry>& out);
void register_flash2_fwd_d64_bf16_s1(std::vector<KernelEntry>& out);
void register_flash2_fwd_d64_bf16_s3(std::vector<KernelEntry>& out);
void register_flash2_fwd_d128_fp16(std::vector<KernelEntry>& out);
void register_flash2_fwd_d128_fp16_s1(std::vector<KernelEntry>& out);
void register_flash2_fwd_d128_fp16_s3(std::vector<KernelEntry>& out);
void register_flash2_fwd_d128_bf16(std::vector<KernelEntry>& out);
void register_flash2_fwd_d128_bf16_s1(std::vector<KernelEntry>& out);
void register_flash2_fwd_d128_bf16_s3(std::vector<KernelEntry>& out);
void register_flash2_bwd_d64_fp16(std::vector<KernelEntry>& out);
void register_flash2_bwd_d64_fp16_altwarps(std::vector<KernelEntry>& out);
void register_flash2_bwd_d64_bf16(std::vector<KernelEntry>& out);
void register_flash2_bwd_d64_bf16_altwarps(std::vector<KernelEntry>& out);
void register_flash2_bwd_d128_fp16(std::vector<KernelEntry>& out);
void register_flash2_bwd_d128_fp16_altwarps(std::vector<KernelEntry>& out);
void register_flash2_bwd_d128_bf16(std::vector<KernelEntry>& out);
void register_flash2_bwd_d128_bf16_altwarps(std::vector<KernelEntry>& out);
void register_flashdecode_d64_fp16(std::vector<KernelEntry>& out);
void register_flashdecode_d64_bf16(std::vector<KernelEntry>& out);
void register_flashdecode_d128_fp16(std::vector<KernelEntry>& out);
void register_flashdecode_d128_bf16(std::vector<KernelEntry>& out);

}  // namespace iosim::gpu::detail
