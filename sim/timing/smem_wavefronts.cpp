#include "sim/timing/smem_wavefronts.h"

#include <algorithm>

namespace iosim {

namespace {

constexpr double kWavefrontBytes = 128;        ///< 32 banks × 4 bytes
constexpr double kLdmatrixWavefronts = 4;      ///< ldmatrix.x4: 512 bytes, conflict-free
constexpr double kOperandBytes = 2;            ///< 16-bit operands, staged as packed pairs

std::uint64_t up_div(std::uint64_t a, std::uint64_t b) { return b == 0 ? 0 : (a + b - 1) / b; }

MatmulRole role_of(const KernelFamily& f, std::size_t i) {
  if (f.matmuls.empty()) return kGridShared;
  return f.matmuls[std::min(i, f.matmuls.size() - 1)];
}

}  // namespace

SmemWavefronts row_stat_wavefronts(const KernelFamily::RowStats& r, std::uint64_t rows, std::uint64_t warps) {
  SmemWavefronts out;
  if (r.stored + r.stored_by_lane + r.read == 0 || rows == 0) return out;
  warps = std::max<std::uint64_t>(1, warps);
  // The first product's warp grid (cuda/kernels/common.cuh, warp_grid): min(warps, rows / 16) warps
  // down the rows, each over rows / 16 / that many m16 tiles; every warp reads its rows' statistics.
  const std::uint64_t m16 = std::max<std::uint64_t>(1, up_div(rows, 16));
  const std::uint64_t down = std::min(warps, m16);
  const std::uint64_t tiles = up_div(m16, down);
  out.ld = static_cast<double>(r.read * warps * tiles * 2);
  out.st = static_cast<double>(r.stored * up_div(rows, 32) + r.stored_by_lane * rows);
  return out;
}

double estimated_wavefronts(double smem_bytes) { return smem_bytes / kWavefrontBytes; }

bool counts_wavefronts(const KernelFamily& f) {
  return f.smem_layout != SharedLayout::unknown && f.model == FamilyModel::sm_steps;
}

SmemWavefronts step_wavefronts(const Segment& s, bool first, const KernelFamily& f, const InstructionMix& mix,
                               std::uint64_t warps) {
  SmemWavefronts out;
  // none: no shared memory; flashdecode's kernels: counted per block (decode_wavefronts.h), not per step.
  if (!counts_wavefronts(f) || f.smem_layout == SharedLayout::none || f.smem_layout == SharedLayout::flashdecode ||
      f.smem_layout == SharedLayout::flashdecode_combine) {
    return out;
  }
  const auto w = static_cast<double>(std::max<std::uint64_t>(1, warps));
  // The products' shared operands, as the SM model issues them (none for wgmma).
  out.ld += kLdmatrixWavefronts * mix.ldmatrix * w;
  for (std::size_t i = 0; i < s.matmuls.size(); ++i) {
    const MatmulShape& mm = s.matmuls[i];
    const MatmulRole role = role_of(f, i);
    if (first && i == 0 && role.a == Operand::registers && role.split == WarpSplit::rows &&
        f.hopper.mma == MmaInstruction::mma_sync) {
      // The held A operand's fragments, read once: m16 × k16 tiles of each warp's rows, one ldmatrix.x4 each.
      const std::uint64_t tiles = std::max<std::uint64_t>(1, up_div(up_div(mm.m, warps), 16)) *
                                  std::max<std::uint64_t>(1, up_div(mm.k, 16));
      out.ld += kLdmatrixWavefronts * static_cast<double>(tiles) * w;
    }
    if (i == 0) out.add(row_stat_wavefronts(f.row_stats, mm.m, warps));
    if (i == 0 && f.shared_tile_reads > 0) {
      out.ld += static_cast<double>(f.shared_tile_reads * mm.m * mm.k) * kOperandBytes / kWavefrontBytes;
    }
    if (role.output_staged) {
      // The product's m × n output written back as 16-bit pairs, one 32-bit store per lane.
      out.st += static_cast<double>(mm.m * mm.n) * kOperandBytes / kWavefrontBytes;
    }
  }
  if (f.output_staged) {
    // Each byte stored or atomically added to HBM is first written into shared memory by the warps
    // that hold it (packed pairs or fp32 pairs, conflict-free: one wavefront per 128 bytes), then read
    // back for the global stores (16 bytes a lane) or the REDs (4 bytes a lane): one per 128 bytes too.
    const double bytes = s.store_bytes + s.reduce_bytes;
    out.st += bytes / kWavefrontBytes;
    out.ld += bytes / kWavefrontBytes;
  }
  return out;
}

}  // namespace iosim
