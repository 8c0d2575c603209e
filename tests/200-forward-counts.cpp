// Exact HBM counts of the forward schedules against closed forms derived by hand from each algorithm
// (docs/counting.md has the derivations), over ragged sizes, batch × heads, and n ≠ n_kv.
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

const Shape kShapes[] = {
    {8192, 8192, 64, 1, 1}, {1000, 1000, 64, 2, 3}, {1, 1, 1, 1, 1}, {257, 129, 128, 1, 2},
    {4096, 777, 32, 3, 1},  {33, 4097, 64, 1, 1},   {12345, 12345, 80, 2, 2},
};

Problem as_problem(const Shape& s) { return problem(s.n, s.d, s.batch, s.heads, s.n_kv); }

}  // namespace

TEST_CASE("naive forward: each operand of each phase once (Algorithm 0)") {
  for (const Shape& s : kShapes) {
    CAPTURE(s.n);
    CAPTURE(s.n_kv);
    CAPTURE(s.d);
    const ScheduleRun r = count("naive", context(as_problem(s)));
    const std::uint64_t bh = s.batch * s.heads, N = s.n, Nk = s.n_kv, d = s.d;
    CHECK(reads(r, Tensor::Q) == bh * N * d);
    CHECK(reads(r, Tensor::K) == bh * Nk * d);
    CHECK(reads(r, Tensor::V) == bh * Nk * d);
    CHECK(reads(r, Tensor::S) == bh * N * Nk);
    CHECK(writes(r, Tensor::S) == bh * N * Nk);
    CHECK(reads(r, Tensor::P) == bh * N * Nk);
    CHECK(writes(r, Tensor::P) == bh * N * Nk);
    CHECK(writes(r, Tensor::O) == bh * N * d);
    CHECK(r.ledger.total(Level::hbm).elements().value == bh * (4 * N * Nk + N * d + 2 * Nk * d + N * d));
    CHECK(r.ledger.total(Level::hbm).bytes().value == 2 * r.ledger.total(Level::hbm).elements().value);
    CHECK(r.ledger.matmul_flops().value == bh * 4 * N * Nk * d);
    CHECK(r.ledger.vector_flops().value == bh * 5 * N * Nk);
    CHECK(r.ledger.special_flops().value == bh * N * Nk);  // one exp per score
  }
}

TEST_CASE("naive forward reads S twice when a row of S does not fit in SRAM") {
  const Problem p = problem(100000, 64);  // a row of S is 200,000 B > 166,912 B
  const ScheduleRun r = count("naive", context(p));
  CHECK(reads(r, Tensor::S) == 2 * p.n * p.n_kv);
  REQUIRE(r.notes.size() == 1);
  CHECK(r.notes[0].find("reads S twice") != std::string::npos);
  CHECK(count("naive", context(problem(80000, 64))).notes.empty());  // 160,000 B fits
}

TEST_CASE("flash1 forward: Algorithm 1, O, l, m read and written every inner step") {
  for (const Shape& s : kShapes) {
    for (const auto& t : {tiles(16, 64), tiles(64, 128), tiles(7, 33), tiles(64, 200)}) {
      CAPTURE(s.n);
      CAPTURE(s.n_kv);
      CAPTURE(*t.br);
      CAPTURE(*t.bc);
      const ScheduleRun r = count("flash1", context(as_problem(s), a100(), t));
      const std::uint64_t bh = s.batch * s.heads, N = s.n, Nk = s.n_kv, d = s.d;
      const std::uint64_t Tc = ceil_div(Nk, *t.bc);
      CHECK(reads(r, Tensor::K) == bh * Nk * d);
      CHECK(reads(r, Tensor::V) == bh * Nk * d);
      CHECK(reads(r, Tensor::Q) == bh * Tc * N * d);
      CHECK(reads(r, Tensor::O) == bh * Tc * N * d);
      CHECK(reads(r, Tensor::l) == bh * Tc * N);
      CHECK(reads(r, Tensor::m) == bh * Tc * N);
      CHECK(writes(r, Tensor::O) == bh * (Tc + 1) * N * d);
      CHECK(writes(r, Tensor::l) == bh * (Tc + 1) * N);
      CHECK(writes(r, Tensor::m) == bh * (Tc + 1) * N);
      // bytes: fp16 for Q, K, V, O; fp32 for l, m
      const std::uint64_t elem16 = bh * (2 * Nk * d + 2 * Tc * N * d + (Tc + 1) * N * d);
      const std::uint64_t elem32 = bh * (2 * Tc * N + 2 * (Tc + 1) * N);
      CHECK(r.ledger.total(Level::hbm).bytes().value == 2 * elem16 + 4 * elem32);
      CHECK(r.ledger.matmul_flops().value == bh * 4 * N * Nk * d);
      CHECK(r.ledger.vector_flops().value == bh * (4 * N * Nk + 6 * Tc * N + 4 * Tc * N * d));
      CHECK(r.ledger.special_flops().value == bh * (N * Nk + 2 * Tc * N));
    }
  }
}

TEST_CASE("flash2 forward: Q read once, K and V once per Q tile, O written once") {
  for (const Shape& s : kShapes) {
    for (const auto& t : {tiles(128, 128), tiles(64, 32), tiles(100, 17)}) {
      CAPTURE(s.n);
      CAPTURE(s.n_kv);
      CAPTURE(*t.br);
      CAPTURE(*t.bc);
      const ScheduleRun r = count("flash2", context(as_problem(s), a100(), t));
      const std::uint64_t bh = s.batch * s.heads, N = s.n, Nk = s.n_kv, d = s.d;
      const std::uint64_t Tr = ceil_div(N, *t.br), Tc = ceil_div(Nk, *t.bc);
      CHECK(reads(r, Tensor::Q) == bh * N * d);
      CHECK(reads(r, Tensor::K) == bh * Tr * Nk * d);
      CHECK(reads(r, Tensor::V) == bh * Tr * Nk * d);
      CHECK(writes(r, Tensor::O) == bh * N * d);
      CHECK(writes(r, Tensor::L) == bh * N);
      CHECK(r.ledger.total(Level::hbm).read_bytes.value == 2 * bh * (N * d + 2 * Tr * Nk * d));
      CHECK(r.ledger.total(Level::hbm).write_bytes.value == bh * (2 * N * d + 4 * N));
      CHECK(r.ledger.matmul_flops().value == bh * 4 * N * Nk * d);
      CHECK(r.ledger.vector_flops().value == bh * (4 * N * Nk + 4 * Tc * N + Tc * N * d + N * d + N));
      CHECK(r.ledger.special_flops().value == bh * (N * Nk + Tc * N + N));
    }
  }
}

TEST_CASE("default tiles: the paper's for flash1, flash2's the kernel menu's where a kernel is compiled, else FlashAttention-2's") {
  // A100, fp16: M = 166,912 / 2 = 83,456; d = 64 → B_c = ⌈83,456 / 256⌉ = 326, B_r = min(326, 64) = 64.
  const ScheduleRun f1 = count("flash1", context(problem(8192, 64)));
  CHECK(f1.tiles == TileShape{64, 326});
  CHECK(f1.tile_source == tile_source::kPaper);
  CHECK(f1.m_elements == 83456);
  CHECK(f1.notes.empty());
  // d = 64 and 128: the CUDA kernel's default (cuda/kernels/menu.csv), so that `iosim` and `iosim
  // measure` count the same tile.
  for (const std::uint64_t d : {64u, 128u}) {
    CAPTURE(d);
    const kernel_menu::Default* k = menu_default("flash2", Pass::fwd, d);
    REQUIRE(k != nullptr);
    const ScheduleRun r = count("flash2", context(problem(8192, d)));
    CHECK(r.tiles == TileShape{k->br, k->bc});
    CHECK(r.tile_source == tile_source::kMenu);
  }
  CHECK(count("flash2", context(problem(8192, 64))).tiles == TileShape{128, 64});
  CHECK(count("flash2", context(problem(8192, 128))).tiles == TileShape{64, 64});
  CHECK(count("flash2", context(problem(8192, 64), a100(), tiles(64, 32))).tile_source == tile_source::kUser);
  // Elsewhere FlashAttention-2's CUDA code: d ≤ 64 → 128 × 128, d ≤ 192 → 128 × 64.
  CHECK(count("flash2", context(problem(8192, 32))).tiles == TileShape{128, 128});
  CHECK(count("flash2", context(problem(8192, 32))).tile_source == tile_source::kFa2);
  CHECK(fa2_forward_tiles(problem(8192, 64), a100(), false) == TileShape{128, 128});
  CHECK(fa2_forward_tiles(problem(8192, 128), a100(), false) == TileShape{128, 64});
  CHECK(count("flash2", context(problem(8192, 96))).tiles == TileShape{128, 64});
  // hdim 256: 128 × 64 on an A100 (SM smem < 192 KiB), 64 × 64 on an H100-class SM (228 KiB).
  CHECK(count("flash2", context(problem(4096, 256))).tiles == TileShape{128, 64});
  HardwareSpec h100 = a100();
  h100.sm.sram_per_sm = Bytes(233472);
  h100.sm.sram_per_block = Bytes(232448);
  CHECK(count("flash2", context(problem(4096, 256), h100)).tiles == TileShape{64, 64});
  CHECK(count("naive", context(problem(8192, 64))).tiles == TileShape{128, 128});
}

TEST_CASE("batch × heads multiply every count") {
  for (const char* name : {"naive", "flash1", "flash2"}) {
    CAPTURE(name);
    const ScheduleRun one = count(name, context(problem(3000, 64)));
    const ScheduleRun many = count(name, context(problem(3000, 64, 4, 12)));
    CHECK(many.ledger.total(Level::hbm).bytes().value == 48 * one.ledger.total(Level::hbm).bytes().value);
    CHECK(many.ledger.flops().value == 48 * one.ledger.flops().value);
    CHECK(many.upper.value == doctest::Approx(48 * one.upper.value));
  }
}
