// flash2's backward as the project's Triton kernels run it (--kernels triton, flash2_bwd_triton.cpp):
// preprocess, a dK/dV kernel per K/V tile, a dQ kernel per Q tile. Exact HBM counts against closed
// forms: no dQacc and no atomics; the dK/dV kernel reads Q, dO, L, D once per K/V tile that sees them,
// the dQ kernel K and V once per Q tile that sees them.
#include <doctest/doctest.h>

#include "sim/schedule/flash2/triton_bwd_kernels.h"
#include "sim/timing/step_profile.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

namespace {

ScheduleContext triton(const Problem& p, TileRequest t) {
  ScheduleContext ctx = context(p, hopper(), t);
  ctx.kernel.source = KernelSource::triton;
  return ctx;
}

struct Shape {
  std::uint64_t n, n_kv, d, batch, heads;
};

}  // namespace

TEST_CASE("Triton backward: preprocess, dK/dV per K/V tile, dQ per Q tile, K and V read again") {
  const Shape shapes[] = {{1024, 1024, 64, 1, 1}, {1000, 777, 64, 2, 3}, {257, 4100, 128, 1, 2}};
  for (const Shape& s : shapes) {
    for (const auto& t : {tiles(64, 64), tiles(64, 128), tiles(128, 32)}) {
      CAPTURE(s.n);
      CAPTURE(*t.br);
      CAPTURE(*t.bc);
      const ScheduleRun r = count("flash2", triton(problem(s.n, s.d, s.batch, s.heads, s.n_kv), t), Pass::bwd);
      const std::uint64_t bh = s.batch * s.heads, N = s.n, Nk = s.n_kv, d = s.d;
      const std::uint64_t Tr = ceil_div(N, *t.br), Tc = ceil_div(Nk, *t.bc);
      CHECK(reads(r, Tensor::O) == bh * N * d);
      CHECK(reads(r, Tensor::dO) == bh * (1 + Tc + 1) * N * d);  // preprocess, dK/dV, dQ
      CHECK(reads(r, Tensor::Q) == bh * (Tc + 1) * N * d);
      CHECK(reads(r, Tensor::L) == bh * (Tc + 1) * N);
      CHECK(reads(r, Tensor::D) == bh * (Tc + 1) * N);
      CHECK(reads(r, Tensor::K) == bh * (1 + Tr) * Nk * d);      // dK/dV once, dQ once per Q tile
      CHECK(reads(r, Tensor::V) == bh * (1 + Tr) * Nk * d);
      CHECK(writes(r, Tensor::D) == bh * N);
      CHECK(writes(r, Tensor::dQ) == bh * N * d);
      CHECK(writes(r, Tensor::dK) == bh * Nk * d);
      CHECK(writes(r, Tensor::dV) == bh * Nk * d);
      CHECK(reads(r, Tensor::dQacc) == 0);
      CHECK(writes(r, Tensor::dQacc) == 0);
      // Four products in the dK/dV kernel, three in the dQ kernel.
      CHECK(r.ledger.matmul_flops().value == bh * 14 * N * Nk * d);
      CHECK(r.ledger.vector_flops().value == bh * (2 * N * d + 8 * N * Nk + Nk * d + N * d));
      CHECK(r.ledger.special_flops().value == bh * 2 * N * Nk);
    }
  }
}

TEST_CASE("Triton backward, causal: each loop visits the tiles that see each other") {
  // B_r = 128, B_c = 64, N a multiple of both (T_r Q tiles): Q tile i sees K/V tiles 0 … 2i + 1, and K/V
  // tile j is seen by the T_r − ⌊j/2⌋ Q tiles from ⌊j/2⌋ on; both sums are T_r (T_r + 1) tiles.
  for (const std::uint64_t n : {1024u, 4096u}) {
    CAPTURE(n);
    Problem p = problem(n, 64, 2, 4);
    p.causal = true;
    const ScheduleRun r = count("flash2", triton(p, tiles(128, 64)), Pass::bwd);
    const std::uint64_t bh = 8, d = 64, Tr = n / 128;
    CHECK(reads(r, Tensor::K) == bh * (n * d + Tr * (Tr + 1) * 64 * d));
    CHECK(reads(r, Tensor::Q) == bh * (Tr * (Tr + 1) * 128 * d + n * d));
    CHECK(reads(r, Tensor::dO) == bh * (2 * n * d + Tr * (Tr + 1) * 128 * d));
    CHECK(reads(r, Tensor::L) == bh * (Tr * (Tr + 1) * 128 + n));
  }
}

TEST_CASE("Triton backward, grouped K/V heads: dK/dV per K/V head, no group sum") {
  // 8 query heads on 2 K/V heads: the dK/dV kernel's block is a K/V head's, looping over its 4 query
  // heads; the dQ kernel reads each K/V head's K and V once per query head's Q tile.
  Problem p = problem(1024, 64, 1, 8);
  p.kv_heads = 2;
  const ScheduleRun r = count("flash2", triton(p, tiles(64, 64)), Pass::bwd);
  const std::uint64_t N = 1024, d = 64, Tr = 16, Tc = 16;
  CHECK(reads(r, Tensor::K) == 2 * N * d + 8 * Tr * N * d);
  CHECK(reads(r, Tensor::Q) == 8 * (Tc + 1) * N * d);
  CHECK(writes(r, Tensor::dK) == 2 * N * d);
  CHECK(writes(r, Tensor::dKexp) == 0);
  const auto s = make_schedule("flash2", Pass::bwd, triton(p, tiles(64, 64)));
  REQUIRE(s->kernels().size() == 3);
  CHECK(s->kernels()[1]->name() == "flash2_bwd_dkdv");
  CHECK(s->kernels()[1]->grid_heads() == 2);
  CHECK(s->variant() == "Triton");
}

TEST_CASE("Triton backward: the diagonal's steps are told apart from the others by their mask") {
  Problem p = problem(1024, 64);
  p.causal = true;
  const auto s = make_schedule("flash2", Pass::bwd, triton(p, tiles(128, 64)));
  for (const std::size_t kernel : {1u, 2u}) {
    CAPTURE(kernel);
    const KernelProfile kp = profile_kernel(*s->kernels()[kernel], DType::fp16);
    std::uint64_t masked = 0, steps = 0;
    for (std::size_t x = 0; x < kp.profile_of_x.size(); ++x) {
      for (const SegmentRun& run : kp.distinct[kp.profile_of_x[x]].runs) {
        const Segment& seg = run.segment;
        if (seg.matmuls.empty()) continue;
        steps += run.count;
        if (triton_bwd_step_masked(seg.matmuls.front().m, seg.matmuls.front().n, seg.vector_flops)) masked += run.count;
      }
    }
    // 8 Q tiles of 128 over 16 K/V tiles of 64: each Q tile's diagonal crosses two K/V tiles.
    CHECK(masked == 16);
    CHECK(steps == 8 * 9);
  }
}
