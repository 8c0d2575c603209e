// Shared-memory wavefronts of flashdecode's split kernel (cuda/kernels/flashdecode.cuh), derived from
// that kernel's own instructions (SharedLayout::flashdecode), block by block:
//   - Q's fragments, read once by ldmatrix.x4 (d / 16 a computing warp), before the K/V loop;
//   - each K/V tile: ldmatrix.x4 of K (S = Q Kᵀ) and of V (O += P V), d / 16 × (columns / 16) each a
//     warp; by rows (grid heads of more than 16 rows) every warp with a row takes all the tile's columns
//     64 at a time, by columns (at most 16 rows) each of the 4 warps a quarter of the tile;
//   - the end by columns: each warp's m, l (4-byte stores by the lane of each row pair) and O (8-byte
//     stores, rows d floats apart: bank conflicts) merged through shared memory and read back by the
//     threads of the block's rows; by rows with one split, O staged as packed pairs in Q's swizzled tile
//     and read back 16 bytes a lane for the global stores (a split's partials go out from registers).
// A wavefront is one pass of the 32 banks: an instruction takes as many as the most distinct 4-byte
// words any bank serves it.
//
// The combine kernel (flashdecode_combine, SharedLayout::flashdecode_combine) stages each row's split
// weights in shared memory, w_s[row · s + k] (s splits, 64 rows a block, 128 threads): the thread of each
// row stores its s weights, then loads and stores each again (× 1 / sum); the output loop, 4 columns a
// thread, loads one weight a split for the row of each element. Rows s words apart meet in one bank.
#pragma once

#include <cstdint>

#include "sim/timing/smem_wavefronts.h"
#include "sim/timing/step_profile.h"

namespace iosim {

/// One warp instruction's wavefronts: lane i (of 32) accesses `width` consecutive 4-byte words from
/// word `first[i]`, or none where `first[i]` < 0; the most distinct words any bank serves.
[[nodiscard]] std::uint64_t warp_access_wavefronts(const std::int64_t (&first)[32], std::uint64_t width);

/// One block of the split kernel, from its profile (its first product's m is the block's rows; a block of
/// an empty split has no product and loads only its Q tile), head dimension `d` and K/V tile `bc` (0: each
/// step's own columns). With n_kv < B_c the time model passes n_kv for `bc` (the kernel does not name
/// its tile): by columns, all 4 warps then count, where the kernel's warps past n_kv skip the tile.
[[nodiscard]] SmemWavefronts decode_split_wavefronts(const BlockProfile& p, std::uint64_t d, std::uint64_t bc);

/// One block of the combine kernel: `rows` rows (at most 64) of `splits` splits' partials, head dimension `d`.
[[nodiscard]] SmemWavefronts decode_combine_wavefronts(std::uint64_t rows, std::uint64_t splits, std::uint64_t d);

/// The same from the block's profile: it loads each split's fp32 partials of its rows (Lpart: 1, Opart: d a
/// row) and stores O (`out_bytes` an element) and L (fp32) once a row, which give its rows and splits.
[[nodiscard]] SmemWavefronts decode_combine_wavefronts(const BlockProfile& p, std::uint64_t d, std::uint64_t out_bytes);

}  // namespace iosim
