// Tiny cases checked access by access: every element-level read and write of every tile is recorded,
// and each element of each tensor must be touched exactly as the algorithm says. Also: visiting tiles
// one by one (Walk::each) counts exactly what visiting runs of equal tiles (Walk::runs) counts.
#include <doctest/doctest.h>

#include <map>
#include <tuple>

#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

namespace {

/// Expands every transfer into its elements: (tensor, row, col) → reads, writes.
class ElementMap final : public EventSink {
 public:
  struct Touch {
    std::uint64_t reads = 0, writes = 0;
  };
  void on_transfer(const Transfer& t) override {
    for (std::uint64_t r = t.tile.row; r < t.tile.row + t.tile.rows; ++r) {
      for (std::uint64_t c = t.tile.col; c < t.tile.col + t.tile.cols; ++c) {
        Touch& touch = map[{t.tile.tensor, r, c}];
        if (t.dir != Direction::sram_to_hbm) touch.reads += t.times;
        if (t.dir != Direction::hbm_to_sram) touch.writes += t.times;
      }
    }
  }
  void on_compute(const Compute&) override {}
  std::map<std::tuple<Tensor, std::uint64_t, std::uint64_t>, Touch> map;

  /// Every element of the rows × cols tensor t touched exactly (reads, writes) times, none outside.
  void expect(Tensor t, std::uint64_t rows, std::uint64_t cols, std::uint64_t reads, std::uint64_t writes) const {
    std::uint64_t seen = 0;
    for (const auto& [key, touch] : map) {
      if (std::get<0>(key) != t) continue;
      ++seen;
      CHECK(std::get<1>(key) < rows);
      CHECK(std::get<2>(key) < cols);
      CHECK(touch.reads == reads);
      CHECK(touch.writes == writes);
    }
    CHECK(seen == rows * cols);
  }
  [[nodiscard]] std::size_t tensors() const {
    std::map<Tensor, int> s;
    for (const auto& [key, touch] : map) s[std::get<0>(key)] = 1;
    return s.size();
  }
};

ElementMap enumerate(const std::string& name, const ScheduleContext& ctx, Pass pass = Pass::fwd) {
  ElementMap m;
  const Problem one_head = [&] {
    Problem p = ctx.problem;
    p.batch = p.heads = 1;
    return p;
  }();
  ScheduleContext c = ctx;
  c.problem = one_head;
  make_schedule(name, pass, c)->emit(Emitter(m, Walk::each));
  return m;
}

}  // namespace

SCENARIO("flash2 touches every element as FlashAttention-2 says") {
  GIVEN("n = 7, n_kv = 5, d = 3 with tiles 3 × 2 (ragged both ways)") {
    const auto m = enumerate("flash2", context(problem(7, 3, 1, 1, 5), a100(), tiles(3, 2)));
    const std::uint64_t Tr = 3;
    THEN("Q once, K and V once per Q tile, O and L written once") {
      m.expect(Tensor::Q, 7, 3, 1, 0);
      m.expect(Tensor::K, 5, 3, Tr, 0);
      m.expect(Tensor::V, 5, 3, Tr, 0);
      m.expect(Tensor::O, 7, 3, 0, 1);
      m.expect(Tensor::L, 7, 1, 0, 1);
      CHECK(m.tensors() == 5);
    }
  }
}

SCENARIO("flash1 touches every element as Algorithm 1 says") {
  GIVEN("n = 5, n_kv = 7, d = 2 with tiles 2 × 3") {
    const auto m = enumerate("flash1", context(problem(5, 2, 1, 1, 7), a100(), tiles(2, 3)));
    const std::uint64_t Tc = 3;
    THEN("K and V once; Q, O, l, m once per K/V tile; O, l, m written once more at initialisation") {
      m.expect(Tensor::K, 7, 2, 1, 0);
      m.expect(Tensor::V, 7, 2, 1, 0);
      m.expect(Tensor::Q, 5, 2, Tc, 0);
      m.expect(Tensor::O, 5, 2, Tc, Tc + 1);
      m.expect(Tensor::l, 5, 1, Tc, Tc + 1);
      m.expect(Tensor::m, 5, 1, Tc, Tc + 1);
      CHECK(m.tensors() == 6);
    }
  }
}

SCENARIO("naive touches every element as Algorithm 0 says") {
  GIVEN("n = 4, n_kv = 6, d = 3") {
    const auto m = enumerate("naive", context(problem(4, 3, 1, 1, 6)));
    THEN("Q, K, V read once; S and P written once and read once; O written once") {
      m.expect(Tensor::Q, 4, 3, 1, 0);
      m.expect(Tensor::K, 6, 3, 1, 0);
      m.expect(Tensor::V, 6, 3, 1, 0);
      m.expect(Tensor::S, 4, 6, 1, 1);
      m.expect(Tensor::P, 4, 6, 1, 1);
      m.expect(Tensor::O, 4, 3, 0, 1);
      CHECK(m.tensors() == 6);
    }
  }
}

SCENARIO("flash2's backward touches every element as its three kernels say") {
  GIVEN("n = 7, n_kv = 5, d = 3 with tiles 3 × 2") {
    const auto m = enumerate("flash2", context(problem(7, 3, 1, 1, 5), a100(), tiles(3, 2)), Pass::bwd);
    const std::uint64_t Tc = 3;
    THEN("Q, L, D once per K/V tile; dO once more (preprocess); dQacc reduced once per K/V tile") {
      m.expect(Tensor::Q, 7, 3, Tc, 0);
      m.expect(Tensor::K, 5, 3, 1, 0);
      m.expect(Tensor::V, 5, 3, 1, 0);
      m.expect(Tensor::O, 7, 3, 1, 0);
      m.expect(Tensor::dO, 7, 3, Tc + 1, 0);
      m.expect(Tensor::L, 7, 1, Tc, 0);
      m.expect(Tensor::D, 7, 1, Tc, 1);
      m.expect(Tensor::dQacc, 7, 3, Tc + 1, Tc + 1);
      m.expect(Tensor::dQ, 7, 3, 0, 1);
      m.expect(Tensor::dK, 5, 3, 0, 1);
      m.expect(Tensor::dV, 5, 3, 0, 1);
      CHECK(m.tensors() == 11);
    }
  }
}

SCENARIO("flash1's backward touches every element as Algorithm 4 says") {
  GIVEN("n = 5, n_kv = 7, d = 2 with tiles 2 × 3") {
    const auto m = enumerate("flash1", context(problem(5, 2, 1, 1, 7), a100(), tiles(2, 3)), Pass::bwd);
    const std::uint64_t Tc = 3;
    THEN("Q, O, dO, l, m read once per K/V tile; dQ read and written once per K/V tile, plus initialised") {
      for (Tensor t : {Tensor::Q, Tensor::O, Tensor::dO}) m.expect(t, 5, 2, Tc, 0);
      m.expect(Tensor::l, 5, 1, Tc, 0);
      m.expect(Tensor::m, 5, 1, Tc, 0);
      m.expect(Tensor::dQ, 5, 2, Tc, Tc + 1);
      m.expect(Tensor::K, 7, 2, 1, 0);
      m.expect(Tensor::V, 7, 2, 1, 0);
      m.expect(Tensor::dK, 7, 2, 0, 2);
      m.expect(Tensor::dV, 7, 2, 0, 2);
    }
  }
}

TEST_CASE("tile by tile counts the same as runs of equal tiles") {
  for (const ScheduleInfo& info : schedule_catalog()) {
    for (Pass pass : {Pass::fwd, Pass::bwd}) {
      if (!has_pass(info.name, pass) || !runs_anywhere(info.name)) continue;
      for (bool causal : {false, true}) {
        for (std::uint64_t n : {1u, 31u, 64u, 300u, 1025u}) {
          for (const auto& t : {tiles(16, 16), tiles(64, 48), tiles(5, 9)}) {
            const std::string name(info.name);
            CAPTURE(name);
            CAPTURE(n);
            CAPTURE(causal);
            Problem asked = problem(n, 32, 2, 4, n + 7);
            asked.kv_heads = 2;
            asked.causal = causal;
            const std::optional<Problem> p = as_taken_by(name, asked);
            if (!p) continue;
            const ScheduleContext ctx = context(*p, a100(), t);
            const auto s = make_schedule(name, pass, ctx);
            Ledger runs(DType::fp16), each(DType::fp16);
            s->emit(Emitter(runs, Walk::runs));
            s->emit(Emitter(each, Walk::each));
            for (Level level : {Level::hbm, Level::sram}) {
              for (Tensor tensor : kAllTensors) CHECK(runs.at(level, tensor) == each.at(level, tensor));
            }
            CHECK(runs.flops() == each.flops());
            CHECK(runs.transfers() == each.transfers());
          }
        }
      }
    }
  }
}

namespace {

/// Every block of every kernel, one by one, each head separately: what the GPU model runs.
Ledger by_blocks(const Schedule& s, DType t) {
  Ledger led(t);
  const Emitter e(led, Walk::each);
  for (const Kernel* k : s.kernels()) {
    for (std::uint64_t h = 0; h < k->grid_heads(); ++h) {
      for (std::uint64_t x = 0; x < k->grid_x().count(); ++x) {
        k->block(Span{x, 1, k->grid_x().size(x), k->grid_x().begin(x)}, e);
      }
    }
  }
  return led;
}

}  // namespace

TEST_CASE("the kernels' thread blocks, one by one, move what emit() counts") {
  for (const ScheduleInfo& info : schedule_catalog()) {
    for (Pass pass : {Pass::fwd, Pass::bwd}) {
      if (!has_pass(info.name, pass) || !runs_anywhere(info.name)) continue;
      for (bool causal : {false, true}) {
        const std::string name(info.name);
        CAPTURE(name);
        CAPTURE(causal);
        Problem asked = problem(300, 32, 2, 4, 333);
        asked.kv_heads = 2;
        asked.causal = causal;
        const std::optional<Problem> p = as_taken_by(name, asked);
        if (!p) continue;
        const ScheduleContext ctx = context(*p, a100(), tiles(64, 48));
        const auto s = make_schedule(name, pass, ctx);
        Ledger counted(DType::fp16);
        s->emit(Emitter(counted, Walk::runs));
        const Ledger blocks = by_blocks(*s, DType::fp16);
        if (info.caps.streaming) {
          // naive and eager: the GEMMs' blocks re-read their operand panels (the L2 absorbs that); they write the same.
          CHECK(blocks.total(Level::hbm).write_elements == counted.total(Level::hbm).write_elements);
          CHECK(blocks.total(Level::hbm).read_elements > counted.total(Level::hbm).read_elements);
          CHECK(blocks.matmul_flops() == counted.matmul_flops());
          for (Tensor t : {Tensor::S, Tensor::P, Tensor::dP, Tensor::dS}) {
            CHECK(blocks.at(Level::hbm, t).write_elements == counted.at(Level::hbm, t).write_elements);
          }
        } else {
          for (Tensor t : kAllTensors) CHECK(blocks.at(Level::hbm, t) == counted.at(Level::hbm, t));
          CHECK(blocks.flops() == counted.flops());
        }
      }
    }
  }
}

TEST_CASE("launch shapes: threads from warps, shared memory from the SRAM plan") {
  const auto s = make_schedule("flash2", Pass::fwd, context(problem(8192, 64)));
  const std::vector<const Kernel*> ks = s->kernels();
  REQUIRE(ks.size() == 1);
  CHECK(ks[0]->name() == "flash2_fwd");
  CHECK(ks[0]->launch().threads == 128);
  CHECK(ks[0]->launch().smem == Bytes(32768));  // the kernel menu's 128 × 64: Q_i, K_j, V_j
  // S (128 × 64) and O (128 × 64) accumulators over 128 threads, plus the base.
  CHECK(ks[0]->launch().registers_per_thread == (128 * 64 + 128 * 64) / 128 + kBaseRegisters);
  CHECK(ks[0]->grid_x().count() == 64);
  CHECK(s->kernel_config().warps == 4);
  ScheduleContext eight = context(problem(8192, 64));
  eight.kernel.warps = 8;
  CHECK(make_schedule("flash2", Pass::fwd, eight)->kernels()[0]->launch().threads == 256);
  CHECK(make_schedule("flash2", Pass::bwd, context(problem(8192, 64)))->kernels().size() == 3);
}
