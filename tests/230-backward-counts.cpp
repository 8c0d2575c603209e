// Exact HBM counts and FLOPs of the backward passes against closed forms derived from each algorithm
// (docs/counting.md): the standard backward (Algorithm 3), Algorithm 4, and FlashAttention-2's code.
#include <doctest/doctest.h>

#include "sim/schedule/defaults.h"
#include "sim/schedule/kernel_menu.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

namespace {

struct Shape {
  std::uint64_t n, n_kv, d, batch, heads;
};

const Shape kShapes[] = {{1024, 1024, 64, 1, 1}, {1000, 777, 64, 2, 3}, {1, 1, 1, 1, 1}, {257, 4100, 128, 1, 2}};

}  // namespace

TEST_CASE("naive backward: the standard backward with P, dP, dS in HBM") {
  for (const Shape& s : kShapes) {
    CAPTURE(s.n);
    const ScheduleRun r = count("naive", context(problem(s.n, s.d, s.batch, s.heads, s.n_kv)), Pass::bwd);
    const std::uint64_t bh = s.batch * s.heads, N = s.n, Nk = s.n_kv, d = s.d;
    CHECK(reads(r, Tensor::P) == bh * 2 * N * Nk);
    CHECK(reads(r, Tensor::dP) == bh * N * Nk);
    CHECK(reads(r, Tensor::dS) == bh * 2 * N * Nk);
    CHECK(reads(r, Tensor::dO) == bh * 2 * N * d);
    CHECK(reads(r, Tensor::Q) == bh * N * d);
    CHECK(reads(r, Tensor::K) == bh * Nk * d);
    CHECK(reads(r, Tensor::V) == bh * Nk * d);
    CHECK(writes(r, Tensor::dP) == bh * N * Nk);
    CHECK(writes(r, Tensor::dS) == bh * N * Nk);
    CHECK(writes(r, Tensor::dQ) == bh * N * d);
    CHECK(writes(r, Tensor::dK) == bh * Nk * d);
    CHECK(writes(r, Tensor::dV) == bh * Nk * d);
    CHECK(r.ledger.total(Level::hbm).elements().value == bh * (7 * N * Nk + 4 * N * d + 4 * Nk * d));
    CHECK(r.ledger.matmul_flops().value == bh * 8 * N * Nk * d);
    CHECK(r.ledger.vector_flops().value == bh * (4 * N * Nk + N * d + Nk * d));
    CHECK(r.ledger.special_flops().value == 0);  // P is read, not recomputed
  }
}

TEST_CASE("naive backward reads P and dP twice when their rows do not fit together") {
  // 2 rows × 50,000 × 2 B = 200,000 B > 166,912 B.
  const ScheduleRun r = count("naive", context(problem(50000, 64)), Pass::bwd);
  CHECK(reads(r, Tensor::P) == 3ull * 50000 * 50000);
  CHECK(reads(r, Tensor::dP) == 2ull * 50000 * 50000);
  CHECK(r.variant == "two-pass dS");
}

TEST_CASE("flash1 backward: Algorithm 4, dQ_i read and written every step") {
  for (const Shape& s : kShapes) {
    for (const auto& t : {tiles(16, 64), tiles(32, 32), tiles(7, 33)}) {
      CAPTURE(s.n);
      CAPTURE(*t.bc);
      const ScheduleRun r =
          count("flash1", context(problem(s.n, s.d, s.batch, s.heads, s.n_kv), a100(), t), Pass::bwd);
      const std::uint64_t bh = s.batch * s.heads, N = s.n, Nk = s.n_kv, d = s.d;
      const std::uint64_t Tc = ceil_div(Nk, *t.bc), Tr = ceil_div(N, *t.br);
      CHECK(reads(r, Tensor::K) == bh * Nk * d);
      CHECK(reads(r, Tensor::V) == bh * Nk * d);
      for (Tensor x : {Tensor::Q, Tensor::O, Tensor::dO, Tensor::dQ}) CHECK(reads(r, x) == bh * Tc * N * d);
      CHECK(reads(r, Tensor::l) == bh * Tc * N);
      CHECK(reads(r, Tensor::m) == bh * Tc * N);
      CHECK(writes(r, Tensor::dQ) == bh * (Tc + 1) * N * d);
      CHECK(writes(r, Tensor::dK) == bh * 2 * Nk * d);
      CHECK(writes(r, Tensor::dV) == bh * 2 * Nk * d);
      CHECK(r.ledger.total(Level::hbm).write_elements.value == bh * ((Tc + 1) * N * d + 4 * Nk * d));
      // Five products per tile: recomputing S costs 2·N·N_kv·d more than the standard backward.
      CHECK(r.ledger.matmul_flops().value == bh * 10 * N * Nk * d);
      CHECK(r.ledger.vector_flops().value == bh * (5 * N * Nk + 3 * Tc * N * d + Tr * Nk * d));
      CHECK(r.ledger.special_flops().value == bh * N * Nk);  // recomputing P: one exp per score
    }
  }
}

TEST_CASE("flash2 backward: preprocess, one block per K/V tile with atomic dQ, convert") {
  for (const Shape& s : kShapes) {
    for (const auto& t : {tiles(64, 64), tiles(64, 128), tiles(30, 50)}) {
      CAPTURE(s.n);
      CAPTURE(*t.bc);
      const ScheduleRun r =
          count("flash2", context(problem(s.n, s.d, s.batch, s.heads, s.n_kv), a100(), t), Pass::bwd);
      const std::uint64_t bh = s.batch * s.heads, N = s.n, Nk = s.n_kv, d = s.d;
      const std::uint64_t Tc = ceil_div(Nk, *t.bc);
      CHECK(reads(r, Tensor::O) == bh * N * d);
      CHECK(reads(r, Tensor::dO) == bh * (Tc + 1) * N * d);
      CHECK(reads(r, Tensor::Q) == bh * Tc * N * d);
      CHECK(reads(r, Tensor::K) == bh * Nk * d);
      CHECK(reads(r, Tensor::V) == bh * Nk * d);
      CHECK(reads(r, Tensor::L) == bh * Tc * N);
      CHECK(reads(r, Tensor::D) == bh * Tc * N);
      CHECK(writes(r, Tensor::D) == bh * N);
      CHECK(reads(r, Tensor::dQacc) == bh * (Tc + 1) * N * d);
      CHECK(writes(r, Tensor::dQacc) == bh * (Tc + 1) * N * d);
      CHECK(writes(r, Tensor::dQ) == bh * N * d);
      CHECK(writes(r, Tensor::dK) == bh * Nk * d);
      CHECK(writes(r, Tensor::dV) == bh * Nk * d);
      // dQacc is fp32: 4 bytes an element.
      CHECK(r.ledger.at(Level::hbm, Tensor::dQacc).read_bytes.value == 4 * bh * (Tc + 1) * N * d);
      CHECK(r.ledger.matmul_flops().value == bh * 10 * N * Nk * d);
      CHECK(r.ledger.vector_flops().value == bh * (2 * N * d + 4 * N * Nk + Nk * d + N * d));
      CHECK(r.ledger.special_flops().value == bh * N * Nk);
    }
  }
}

TEST_CASE("backward default tiles: the kernel menu's where a kernel is compiled, else FlashAttention-2's") {
  // d = 64 and 128: the CUDA kernel's default (cuda/kernels/menu.csv), 64 × 64.
  for (const std::uint64_t d : {64u, 128u}) {
    CAPTURE(d);
    const kernel_menu::Default* k = menu_default("flash2", Pass::bwd, d);
    REQUIRE(k != nullptr);
    const ScheduleRun r = count("flash2", context(problem(4096, d)), Pass::bwd);
    CHECK(r.tiles == TileShape{k->br, k->bc});
    CHECK(r.tiles == TileShape{64, 64});
    CHECK(r.tile_source == tile_source::kMenu);
  }
  // Elsewhere FlashAttention-2's run_mha_bwd_hdim*: d = 32 → 128 × 128, d = 96 → 64 × 128.
  CHECK(count("flash2", context(problem(4096, 32)), Pass::bwd).tiles == TileShape{128, 128});
  CHECK(count("flash2", context(problem(4096, 96)), Pass::bwd).tiles == TileShape{64, 128});
  CHECK(count("flash2", context(problem(4096, 96)), Pass::bwd).tile_source == tile_source::kFa2);
  // Its rule at d = 64 and 128, by SRAM per block.
  CHECK(fa2_backward_tiles(problem(4096, 64), a100(), false) == TileShape{128, 128});
  CHECK(fa2_backward_tiles(problem(4096, 128), a100(), false) == TileShape{64, 128});
  CHECK(fa2_backward_tiles(problem(4096, 64), with_sram(100 * 1024), false) == TileShape{64, 128});
  // 144 KiB of shared memory at those tiles: the threshold FlashAttention-2's launcher tests.
  CHECK(count("flash2", context(problem(4096, 64), a100(), tiles(128, 128)), Pass::bwd).sram.peak() == Bytes(144 * 1024));
  CHECK(count("flash2", context(problem(4096, 128), a100(), tiles(64, 128)), Pass::bwd).sram.peak() == Bytes(144 * 1024));
}

TEST_CASE("decoding and d-tiled schedules have no backward pass") {
  CHECK_THROWS_WITH_AS((void)count("flashdecode", context(problem(1, 64, 1, 1, 4096)), Pass::bwd),
                       doctest::Contains("flashdecode has no backward pass"), InputError);
  CHECK_FALSE(has_pass("dtiled", Pass::bwd));
  CHECK(has_pass("flash1", Pass::bwd));
}
