// Register spills of PyTorch's FlashAttention-2 kernels (SDPA's flash backend), fp16: each runs at 255
// registers and stores what does not fit to local memory. Nsight Compute counted the local store sectors
// of every kernel (scripts/gpu fa2-writes, on an H100 with torch 2.11 and CUDA 13.0); on every kernel the
// L2's write sectors were the global stores (what the schedule emits) plus these, and DRAM writes stayed
// at or below the global stores: the spilled lines are rewritten in the L2 and not written back while the
// kernel runs, so they add L2 writes and no DRAM traffic. scripts/fit-spills.py fits the figures from
// the committed CSVs, per block and per step of the kernel's loop:
//  - forward (flash_fwd_kernel, 128 × 128 tiles at d = 64, 128 × 64 at d = 128): spills per block and
//    per K/V step; at d = 64 fitted to two unmasked shapes, within 0.1% on a third and 5% low on the
//    causal kernel; at d = 128 fitted to its one unmasked and one causal shape;
//  - split-KV forward (flash_fwd_splitkv_kernel, d = 64): per K/V step only, fitted to one shape, exact on
//    another with twice the steps;
//  - backward (flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel): per block, whatever its Q steps (fitted to
//    16 and 32 steps a block at d = 64, exact on three more shapes); the causal kernel and d = 128 from
//    one shape each.
// Not measured: bf16, other head dimensions, sliding windows, other GPUs' builds (sm_80 code).
#pragma once

#include <array>

#include "sim/schedule/kernel_family.h"

namespace iosim::detail {

inline constexpr std::array kTorchFa2FwdSpills = {
    SpillStores{.kernel = "flash2_fwd", .head_dim = 64, .mask = SpillMask::any, .per_block = 11264, .per_step = 3072},
    SpillStores{.kernel = "flash2_fwd", .head_dim = 128, .mask = SpillMask::any, .per_block = 9216, .per_step = 7104},
    SpillStores{.kernel = "flashdecode_split", .head_dim = 64, .mask = SpillMask::any, .per_block = 0, .per_step = 512},
};

inline constexpr std::array kTorchFa2BwdSpills = {
    SpillStores{.kernel = "flash2_bwd", .head_dim = 64, .mask = SpillMask::none, .per_block = 19456, .per_step = 0},
    SpillStores{.kernel = "flash2_bwd", .head_dim = 64, .mask = SpillMask::causal, .per_block = 12288, .per_step = 0},
    SpillStores{.kernel = "flash2_bwd", .head_dim = 128, .mask = SpillMask::none, .per_block = 2048, .per_step = 0},
    SpillStores{.kernel = "flash2_bwd", .head_dim = 128, .mask = SpillMask::causal, .per_block = 3072, .per_step = 0},
};

}  // namespace iosim::detail
