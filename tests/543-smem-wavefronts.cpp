// Shared-memory wavefronts counted from the time model's instructions (sim/timing/smem_wavefronts.h):
// a closed form for flash2's forward, cp.async and wgmma counting none, and the families whose layout
// the model does not know left to the estimate.
#include <doctest/doctest.h>

#include "sim/schedule/kernel_family.h"
#include "sim/timing/decode_wavefronts.h"
#include "sim/timing/smem_wavefronts.h"
#include "sim/timing/time_model.h"
#include "src/config/hardware_config.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

namespace {

HardwareSpec h200() { return config::load_hardware(std::string(IOSIM_SOURCE_DIR) + "/configs/h200.yaml"); }

}  // namespace

TEST_CASE("flash2's forward: blocks × (steps × the step's ldmatrix + Q once + the staged epilogue)") {
  // b = 2, h = 4, n = 1024, d = 64, B_r × B_c = 128 × 64, 4 warps of 32 rows each, 2 stages.
  ScheduleContext ctx = context(problem(1024, 64, 2, 4), h200(), tiles(128, 64));
  ctx.kernel = KernelRequest{4, 2};
  const auto s = make_schedule("flash2", Pass::fwd, ctx);
  const TimePrediction t = predict_time(*s, ctx, predict(*s, ctx), ctx.hardware);
  REQUIRE(t.kernels.size() == 1);
  const KernelTime& k = t.kernels[0];
  CHECK(k.smem_wavefronts_counted);
  const double blocks = 2.0 * 4 * (1024 / 128);
  const double steps = 1024.0 / 64;
  // Per warp and step: S = Q Kᵀ reads K as (d/16) × (B_c/16) ldmatrix.x4, O += P V reads V as
  // (B_c/16) × (d/16): 32 of them, 4 wavefronts each; 4 warps.
  const double per_step = 4 * (4 * 4 + 4 * 4) * 4.0;
  // Q's fragments once: (32/16) × (64/16) ldmatrix.x4 per warp.
  const double q_once = 4 * (2 * 4) * 4.0;
  // The epilogue's stores (O: 128 × 64 × 2 bytes, L: 128 × 4 bytes) written into shared memory and read
  // back: one wavefront per 128 bytes each way.
  const double staged = (128.0 * 64 * 2 + 128.0 * 4) / 128;
  CHECK(k.smem_wavefronts.ld == doctest::Approx(blocks * (steps * per_step + q_once + staged)));
  CHECK(k.smem_wavefronts.st == doctest::Approx(blocks * staged));
  CHECK(k.smem_wavefronts.total() == doctest::Approx(549376.0));
}

TEST_CASE("cp.async fills and a product's staged outputs: the backward's P and dS") {
  KernelFamily f;
  f.smem_layout = SharedLayout::swizzled;
  f.matmuls = {kGridSharedStaged, kGridShared};
  Segment s;
  s.matmuls = {{64, 32, 64}, {32, 64, 64}};
  s.load_bytes = 1 << 20;  // cp.async: outside the LSU's wavefronts
  InstructionMix mix;
  mix.ldmatrix = 10;
  mix.load = 100;
  const SmemWavefronts w = step_wavefronts(s, false, f, mix, 4);
  CHECK(w.ld == doctest::Approx(4 * 10 * 4.0));
  CHECK(w.st == doctest::Approx(64.0 * 32 * 2 / 128));  // only the first product's output is staged
}

TEST_CASE("a family whose layout is unknown is not counted; one without shared memory counts none") {
  KernelFamily lib;
  lib.model = FamilyModel::roofline;
  CHECK_FALSE(counts_wavefronts(lib));
  KernelFamily torch;  // a described family, but not iosim's layout (PyTorch's)
  CHECK_FALSE(counts_wavefronts(torch));
  InstructionMix mix;
  mix.ldmatrix = 8;
  CHECK(step_wavefronts(Segment{}, false, torch, mix, 4).total() == 0);
  KernelFamily elementwise;
  elementwise.smem_layout = SharedLayout::none;
  CHECK(counts_wavefronts(elementwise));
  CHECK(step_wavefronts(Segment{}, false, elementwise, mix, 4).total() == 0);
  CHECK(counts_wavefronts(family_of("flash2_fwd")));
  CHECK_FALSE(counts_wavefronts(family_of("flash2_fwd", KernelSource::pytorch)));
}

TEST_CASE("a backward's row statistics: warp stores of 32 rows, a lane's of one, each warp's loads of 8 rows") {
  const KernelFamily::RowStats fa2{.stored = 3, .read = 3};
  // 64 rows, 4 warps: one m16 tile a warp down the rows; 3 statistics × 2 halves each.
  CHECK(row_stat_wavefronts(fa2, 64, 4).ld == 3 * 4 * 1 * 2);
  CHECK(row_stat_wavefronts(fa2, 64, 4).st == 3 * 2);  // 64 rows: 2 warp stores a statistic
  // 32 rows, 4 warps: 2 warps down, 2 across; every warp reads its rows' statistics.
  CHECK(row_stat_wavefronts(fa2, 32, 4).ld == 3 * 4 * 1 * 2);
  // 128 rows, 4 warps: 2 m16 tiles a warp.
  CHECK(row_stat_wavefronts(fa2, 128, 4).ld == 3 * 4 * 2 * 2);
  const KernelFamily::RowStats fa1{.stored = 2, .stored_by_lane = 1, .read = 3};
  CHECK(row_stat_wavefronts(fa1, 64, 4).st == 2 * 2 + 64);  // D_i: one lane's store a row
  CHECK(row_stat_wavefronts(KernelFamily::RowStats{}, 64, 4).total() == 0);
  CHECK(family_of("flash2_bwd").row_stats.read == 3);
  CHECK(family_of("flash2_fwd").row_stats.read == 0);
}

TEST_CASE("a warp instruction takes as many wavefronts as the most words one bank serves it") {
  std::int64_t a[32];
  for (int l = 0; l < 32; ++l) a[l] = l;  // 32 consecutive words
  CHECK(warp_access_wavefronts(a, 1) == 1);
  for (int l = 0; l < 32; ++l) a[l] = 4 * l;  // 16 bytes a lane: 512 bytes
  CHECK(warp_access_wavefronts(a, 4) == 4);
  for (int l = 0; l < 32; ++l) a[l] = 0;  // one word: a broadcast
  CHECK(warp_access_wavefronts(a, 1) == 1);
  // float2 stores of 8 rows × 8 floats, rows 64 floats apart: 8 banks serve 8 words each.
  for (int l = 0; l < 32; ++l) a[l] = (l / 4) * 64 + (l % 4) * 2;
  CHECK(warp_access_wavefronts(a, 2) == 8);
  for (int l = 0; l < 32; ++l) a[l] = l < 2 ? l * 16 : -1;  // two lanes, 16 words apart: no conflict
  CHECK(warp_access_wavefronts(a, 1) == 1);
}

namespace {

/// flashdecode-heads at one query a head, 32 heads on 8 K/V heads, d = 64, B_c = 256, on the h200:
/// the time model's kernels for `n_kv` keys in `splits` splits.
TimePrediction decode_heads_time(std::uint64_t n_kv, std::uint64_t splits) {
  ScheduleContext ctx = context(problem(1, 64, 1, 32), h200(), tiles(64, 256));
  ctx.problem.n_kv = n_kv;
  ctx.problem.kv_heads = 8;
  ctx.splits = splits;
  const auto s = make_schedule("flashdecode-heads", Pass::fwd, ctx);
  return predict_time(*s, ctx, predict(*s, ctx), ctx.hardware);
}

}  // namespace

TEST_CASE("flashdecode's split kernel by columns: its own ldmatrix, Q once and the merge (flashdecode.cuh)") {
  // One query per head, 32 heads of 8 K/V heads, n_kv = 4096, d = 64, B_c = 256, 8 splits of 2 tiles:
  // each head's one row in its own grid head (flashdecode-heads), so the 4 warps split each tile's
  // columns, 64 each. Per block:
  //   Q: 4 warps × 4 ldmatrix.x4;  each tile: 4 warps × (4 × 4 for K + 4 × 4 for V) ldmatrix.x4;
  //   merge stores, per warp: m, l (2 × 2 × 1) and O (2 × 8 float2 stores, 8 rows 256 bytes apart: 8 each);
  //   merge loads: 32 pairs of one row, one warp: 4 m, 4 l (broadcasts) and 4 float2 (2 each).
  const TimePrediction t = decode_heads_time(4096, 8);
  REQUIRE(t.kernels.size() == 2);
  const KernelTime& k = t.kernels[0];
  CHECK(k.smem_wavefronts_counted);
  const double blocks = 32.0 * 8;
  const double ld = 4 * 4 * 4.0 + 2 * (4 * 32 * 4.0) + (4 + 4 + 4 * 2);
  const double st = 4 * (2 * 2 * 1 + 2 * 8 * 8.0);
  CHECK(k.smem_wavefronts.ld == doctest::Approx(blocks * ld));
  CHECK(k.smem_wavefronts.st == doctest::Approx(blocks * st));
  CHECK(k.smem_wavefronts.total() == doctest::Approx(417792.0));
  CHECK_FALSE(counts_wavefronts(family_of("dtiled_fwd")));  // derived from the split's family, no kernel
}

TEST_CASE("flashdecode's split kernel: a last K/V tile of 96 columns is the first two warps'") {
  // (1, 32/8, n = 1, n_kv = 4192, d = 64), B_c = 256, one split: 16 whole tiles (512 wavefronts each)
  // and one of 96 columns, which warps 0 and 1 compute (each its whole quarter of 64 columns, warp 1's
  // partly past n_kv): 2 × 32 ldmatrix.x4, 256 wavefronts (counted with B_c = 96, 128).
  const TimePrediction t = decode_heads_time(4192, 1);
  REQUIRE(t.kernels.size() == 1);
  CHECK(t.kernels[0].smem_wavefronts.total() == doctest::Approx(32.0 * (64 + 16 * 512 + 256 + 528 + 16)));
}

TEST_CASE("flashdecode's combine: each row's split weights through shared memory (flashdecode.cuh)") {
  // 64 rows, 4 splits, d = 64: the weights' warps (32 rows each) touch words t · 4 + k, 4 rows a bank:
  // 4 wavefronts each of a split's store, load and store again, 2 warps × 4 splits; the output loop's
  // 1,024 quads in 32 warp-iterations of 2 rows (words 4r + k and 4r + 4 + k, two banks): 1 a split.
  SmemWavefronts w = decode_combine_wavefronts(64, 4, 64);
  CHECK(w.st == 2 * 4 * 2 * 4.0);
  CHECK(w.ld == 2 * 4 * 4.0 + 32 * 4);
  // 40 rows, 2 splits, d = 128: warp 0's 32 rows 2 a bank (2 wavefronts), warp 1's 8 rows on 8 banks (1);
  // the output loop: one row a warp-iteration, 40 of them, one word a split.
  w = decode_combine_wavefronts(40, 2, 128);
  CHECK(w.st == 2 * 2 * (2 + 1.0));
  CHECK(w.ld == 2 * (2 + 1.0) + 40 * 2);
  // Through the time model: flashdecode-heads at n_kv = 4096 in 8 splits, one row a block (32 blocks):
  // 3 accesses a split of one word and one warp-iteration of 16 quads loading one word a split.
  const TimePrediction t = decode_heads_time(4096, 8);
  REQUIRE(t.kernels.size() == 2);
  const KernelTime& k = t.kernels[1];
  CHECK(k.smem_wavefronts_counted);
  CHECK(k.smem_wavefronts.st == doctest::Approx(32.0 * 8 * 2));
  CHECK(k.smem_wavefronts.ld == doctest::Approx(32.0 * 8 * 2));
  CHECK(t.kernels[0].smem_wavefronts.total() + k.smem_wavefronts.total() == doctest::Approx(418816.0));  // ncu, H100
}
