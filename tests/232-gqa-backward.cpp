// Grouped-query attention's backward (kv_heads < heads) against closed forms, as iosim's CUDA kernels
// run it: flash1's and flash2's blocks write dK, dV per query head (dKexp, dVexp: heads × n_kv × d
// each), then a group-sum kernel reads them and writes kv_heads × n_kv × d of dK and dV
// (sim/schedule/group_sum.h); naive's cuBLAS products run once per K/V head over the group's query
// rows, so its dK, dV come out summed (kv_heads × n_kv × d).
#include <doctest/doctest.h>

#include "sim/gpu/gpu_model.h"
#include "sim/schedule/group_sum.h"
#include "sim/schedule/kernel_family.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

namespace {

struct Shape {
  std::uint64_t n, n_kv, d, batch, heads, kv_heads;
};

// 4 query heads per K/V head; 2 per K/V head with ragged tiles; multi-query (one K/V head).
const Shape kShapes[] = {{1024, 1024, 64, 1, 32, 8}, {1000, 777, 64, 2, 6, 3}, {257, 4100, 128, 1, 4, 1}};

Problem gqa(const Shape& s) {
  Problem p = problem(s.n, s.d, s.batch, s.heads, s.n_kv);
  p.kv_heads = s.kv_heads;
  return p;
}

/// HBM bytes of tensor t's traffic, read and written.
std::uint64_t read_bytes(const ScheduleRun& r, Tensor t) { return r.ledger.at(Level::hbm, t).read_bytes.value; }
std::uint64_t write_bytes(const ScheduleRun& r, Tensor t) { return r.ledger.at(Level::hbm, t).write_bytes.value; }

}  // namespace

TEST_CASE("grouped-query flash2 backward: dK, dV per query head, then the group sum") {
  for (const Shape& s : kShapes) {
    for (const auto& t : {tiles(64, 64), tiles(30, 50)}) {
      CAPTURE(s.heads);
      CAPTURE(s.kv_heads);
      CAPTURE(*t.bc);
      const Problem p = gqa(s);
      const ScheduleRun r = count("flash2", context(p, a100(), t), Pass::bwd);
      const std::uint64_t bh = s.batch * s.heads, bkv = s.batch * s.kv_heads, N = s.n, Nk = s.n_kv, d = s.d;
      const std::uint64_t Tc = ceil_div(Nk, *t.bc);
      // The main kernel's stores, per query head; the group sum reads each once.
      for (Tensor x : {Tensor::dKexp, Tensor::dVexp}) {
        CHECK(writes(r, x) == bh * Nk * d);
        CHECK(reads(r, x) == bh * Nk * d);
        CHECK(tensor_elements(p, x) == bh * Nk * d);
      }
      // The group sum's stores: dK and dV once per K/V head, never read.
      for (Tensor x : {Tensor::dK, Tensor::dV}) {
        CHECK(writes(r, x) == bkv * Nk * d);
        CHECK(reads(r, x) == 0);
        CHECK(tensor_elements(p, x) == bkv * Nk * d);
      }
      // Everything else as in multi-head attention (tests/230-backward-counts.cpp); K, V once per query head.
      CHECK(reads(r, Tensor::K) == bh * Nk * d);
      CHECK(reads(r, Tensor::Q) == bh * Tc * N * d);
      CHECK(writes(r, Tensor::dQ) == bh * N * d);
      // Bytes, fp16 except D, L and dQacc (fp32).
      const std::uint64_t read = 2 * bh * (N * d + (Tc + 1) * N * d + Tc * N * d + 2 * Nk * d) +
                                 4 * bh * (2 * Tc * N + (Tc + 1) * N * d) + 2 * 2 * bh * Nk * d;
      const std::uint64_t written =
          4 * bh * (N + (Tc + 1) * N * d) + 2 * bh * (N * d + 2 * Nk * d) + 2 * 2 * bkv * Nk * d;
      CHECK(r.ledger.total(Level::hbm).read_bytes.value == read);
      CHECK(r.ledger.total(Level::hbm).write_bytes.value == written);
      // One add per element the group sum reads; the products as without groups.
      CHECK(r.ledger.vector_flops().value == bh * (2 * N * d + 4 * N * Nk + Nk * d + N * d) + 2 * bh * Nk * d);
      CHECK(r.ledger.matmul_flops().value == bh * 10 * N * Nk * d);
    }
  }
}

TEST_CASE("grouped-query flash1 backward: initialised and written per query head, then the group sum") {
  for (const Shape& s : kShapes) {
    for (const auto& t : {tiles(16, 64), tiles(7, 33)}) {
      CAPTURE(s.heads);
      CAPTURE(*t.bc);
      const ScheduleRun r = count("flash1", context(gqa(s), a100(), t), Pass::bwd);
      const std::uint64_t bh = s.batch * s.heads, bkv = s.batch * s.kv_heads, N = s.n, Nk = s.n_kv, d = s.d;
      const std::uint64_t Tc = ceil_div(Nk, *t.bc);
      for (Tensor x : {Tensor::dKexp, Tensor::dVexp}) {
        CHECK(writes(r, x) == bh * 2 * Nk * d);  // zeroed by the initialisation (as flash1_bwd.cuh), then stored
        CHECK(reads(r, x) == bh * Nk * d);
      }
      for (Tensor x : {Tensor::dK, Tensor::dV}) {
        CHECK(writes(r, x) == bkv * Nk * d);
        CHECK(reads(r, x) == 0);
      }
      CHECK(r.ledger.total(Level::hbm).write_elements.value == bh * ((Tc + 1) * N * d + 4 * Nk * d) + 2 * bkv * Nk * d);
      CHECK(r.ledger.total(Level::hbm).read_elements.value ==
            bh * (2 * Nk * d + Tc * (4 * N * d + 2 * N)) + 2 * bh * Nk * d);
    }
  }
}

TEST_CASE("grouped-query naive backward: dV and dK one product per K/V head over the group's rows") {
  for (const Shape& s : kShapes) {
    CAPTURE(s.heads);
    const ScheduleRun r = count("naive", context(gqa(s)), Pass::bwd);
    const std::uint64_t bh = s.batch * s.heads, bkv = s.batch * s.kv_heads, N = s.n, Nk = s.n_kv, d = s.d;
    CHECK(writes(r, Tensor::dK) == bkv * Nk * d);
    CHECK(writes(r, Tensor::dV) == bkv * Nk * d);
    CHECK(reads(r, Tensor::dKexp) + writes(r, Tensor::dKexp) == 0);  // no scratch: cuBLAS sums inside the product
    // The operands as without groups: P, dO, dS, Q read whole; dP and dQ per query head (V, K once each).
    CHECK(reads(r, Tensor::P) == bh * 2 * N * Nk);
    CHECK(reads(r, Tensor::dS) == bh * 2 * N * Nk);
    CHECK(reads(r, Tensor::dO) == bh * 2 * N * d);
    CHECK(reads(r, Tensor::Q) == bh * N * d);
    CHECK(reads(r, Tensor::V) == bh * Nk * d);
    CHECK(reads(r, Tensor::K) == bh * Nk * d);
    CHECK(r.ledger.total(Level::hbm).write_elements.value == bh * (2 * N * Nk + N * d) + 2 * bkv * Nk * d);
    CHECK(r.ledger.matmul_flops().value == bh * 8 * N * Nk * d);
    CHECK(r.ledger.vector_flops().value == bh * (4 * N * Nk + N * d) + bkv * Nk * d);
  }
}

TEST_CASE("the group sum is a kernel of its own: its grid, its family, what the GPU model sees") {
  const Shape s{1024, 1024, 64, 1, 32, 8};
  const ScheduleContext ctx = context(gqa(s), a100(), tiles(64, 64));
  const auto f2 = make_schedule("flash2", Pass::bwd, ctx);
  const std::vector<const Kernel*> ks = f2->kernels();
  REQUIRE(ks.size() == 4);
  const Kernel& sum = *ks.back();
  CHECK(sum.name() == "flash2_bwd_group_sum");
  CHECK(sum.grid_heads() == 8);
  // A CUDA block's 256 chunks of 16 bytes: 16 rows of dK and 16 of dV at d = 64 in fp16.
  CHECK(group_sum_rows(gqa(s)) == 16);
  CHECK(sum.grid_x().count() == 1024 / 16);
  CHECK(family_of("flash2_bwd_group_sum").name == "elementwise");
  CHECK(family_of("flash1_bwd_group_sum").name == "elementwise");
  CHECK(family_of("flash2_bwd_group_sum", KernelSource::pytorch).name == "library");  // at::sum_out
  CHECK(make_schedule("flash1", Pass::bwd, ctx)->kernels().back()->name() == "flash1_bwd_group_sum");

  // Through the L2: the SMs ask for every byte of dKexp, dVexp and write every byte of dK, dV
  // (rows of 64 fp16 elements are whole 128-byte lines).
  const Prediction pr = predict(*f2, ctx, GpuModelOptions{});
  REQUIRE(pr.kernels.size() == 4);
  const KernelPrediction& k = pr.kernels.back();
  CHECK(k.name == "flash2_bwd_group_sum");
  CHECK(k.blocks == 8 * 64);
  CHECK(k.l2_read_sectors * 32 == 2 * 32 * s.n_kv * s.d * 2);
  CHECK(k.l2_write_sectors * 32 == 2 * 8 * s.n_kv * s.d * 2);
  // The main kernel stores per query head: 32 heads' dK_j, dV_j.
  CHECK(pr.kernels[1].l2_write_sectors * 32 == 2 * 32 * s.n_kv * s.d * 2);
}

TEST_CASE("without grouped K/V heads nothing of this exists") {
  const ScheduleContext ctx = context(problem(1024, 64, 1, 8), a100(), tiles(64, 64));
  CHECK(make_schedule("flash2", Pass::bwd, ctx)->kernels().size() == 3);
  CHECK(make_schedule("flash1", Pass::bwd, ctx)->kernels().size() == 3);
  CHECK(tensor_elements(ctx.problem, Tensor::dKexp) == 0);
  const ScheduleRun r = count("flash2", ctx, Pass::bwd);
  CHECK(read_bytes(r, Tensor::dKexp) + write_bytes(r, Tensor::dKexp) == 0);
  CHECK(write_bytes(r, Tensor::dK) == 2 * 8 * 1024 * 64);
}
