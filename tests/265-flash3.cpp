// flash3 (FlashAttention-3 on Hopper): exact counts against closed forms, forward and backward,
// causal and grouped-query; its default tiles, SRAM plan and warpgroups; what it refuses; its kernel
// family in the SM model; `iosim tiles --schedule flash3` and the command line.
#include <doctest/doctest.h>

#include "sim/core/mask.h"
#include "sim/gpu/gpu_model.h"
#include "sim/trace/trace_sink.h"
#include "sim/schedule/kernel_family.h"
#include "sim/schedule/tile_choice.h"
#include "sim/tiles/search.h"
#include "sim/timing/sm_model.h"
#include "src/config/hardware_config.h"
#include "support/bad_input.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

namespace {

HardwareSpec h200() { return config::load_hardware(std::string(IOSIM_SOURCE_DIR) + "/configs/h200.yaml"); }

struct Shape {
  std::uint64_t n, n_kv, d, batch, heads;
};

const Shape kShapes[] = {
    {8192, 8192, 64, 1, 1}, {1000, 1000, 64, 2, 3}, {1, 1, 8, 1, 1}, {257, 129, 128, 1, 2},
    {4096, 777, 32, 3, 1},  {33, 4097, 64, 1, 1},   {12345, 12345, 80, 2, 2},
};

Problem as_problem(const Shape& s) { return problem(s.n, s.d, s.batch, s.heads, s.n_kv); }

std::string refusal(const ScheduleContext& ctx, Pass pass = Pass::fwd) {
  try {
    (void)make_schedule("flash3", pass, ctx);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("flash3 forward: Q read once, K and V once per Q tile, O and L written once") {
  const HardwareSpec hw = h200();
  for (const Shape& s : kShapes) {
    for (const auto& t : {tiles(128, 128), tiles(64, 32), tiles(192, 64)}) {
      CAPTURE(s.n);
      CAPTURE(s.n_kv);
      CAPTURE(s.d);
      CAPTURE(*t.br);
      const ScheduleRun r = count("flash3", context(as_problem(s), hw, t));
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
      // The same traffic as flash2 with the same tile: the dataflow is FlashAttention-2's.
      const ScheduleRun f2 = count("flash2", context(as_problem(s), hw, t));
      CHECK(r.ledger.total(Level::hbm) == f2.ledger.total(Level::hbm));
    }
  }
}

TEST_CASE("flash3 backward: preprocess, one block per K/V tile with dQ reduced in fp32, convert") {
  const HardwareSpec hw = h200();
  for (const Shape& s : kShapes) {
    for (const auto& t : {tiles(64, 64), tiles(80, 128), tiles(32, 48)}) {
      CAPTURE(s.n);
      CAPTURE(s.d);
      CAPTURE(*t.bc);
      const ScheduleRun r = count("flash3", context(as_problem(s), hw, t), Pass::bwd);
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
      CHECK(r.ledger.at(Level::hbm, Tensor::dQacc).read_bytes.value == 4 * bh * (Tc + 1) * N * d);
      CHECK(writes(r, Tensor::dQ) == bh * N * d);
      CHECK(writes(r, Tensor::dK) == bh * Nk * d);
      CHECK(writes(r, Tensor::dV) == bh * Nk * d);
      CHECK(r.ledger.matmul_flops().value == bh * 10 * N * Nk * d);
      CHECK(r.ledger.vector_flops().value == bh * (2 * N * d + 4 * N * Nk + Nk * d + N * d));
      CHECK(r.ledger.special_flops().value == bh * N * Nk);
    }
  }
}

TEST_CASE("flash3 causal and windowed: tiles outside the mask skipped, counts equal a brute-force walk") {
  const HardwareSpec hw = h200();
  for (Pass pass : {Pass::fwd, Pass::bwd}) {
    for (std::uint64_t n : {100u, 257u}) {
      for (std::uint64_t nkv : {100u, 300u, 64u}) {
        for (std::uint64_t window : {0u, 1u, 50u}) {
        for (const auto& t : {tiles(64, 32), tiles(128, 48)}) {
          CAPTURE(name(pass));
          CAPTURE(n);
          CAPTURE(nkv);
          CAPTURE(window);
          CAPTURE(*t.br);
          Problem p = problem(n, 16, 1, 1, nkv);
          p.causal = true;
          p.window = window;
          const ScheduleRun r = count("flash3", context(p, hw, t), pass);
          const Mask m(p);
          const Tiling rows{n, *t.br}, cols{nkv, *t.bc};
          std::uint64_t k_reads = 0, q_reads = 0, k_seen = 0, scored_tiles = 0;
          for (std::uint64_t j = 0; j < cols.count(); ++j) {
            bool seen = false;
            for (std::uint64_t i = 0; i < rows.count(); ++i) {
              bool any = false;
              for (std::uint64_t r0 = rows.begin(i); r0 < rows.begin(i) + rows.size(i) && !any; ++r0) {
                for (std::uint64_t c0 = cols.begin(j); c0 < cols.begin(j) + cols.size(j) && !any; ++c0) {
                  any = m.sees(r0, c0);
                }
              }
              if (!any) continue;
              seen = true;
              ++scored_tiles;
              q_reads += rows.size(i) * 16;
              k_reads += cols.size(j) * 16;
            }
            if (seen) k_seen += cols.size(j) * 16;
          }
          CHECK(scored_tiles > 0);
          if (pass == Pass::fwd) {
            CHECK(reads(r, Tensor::K) == k_reads);
            CHECK(reads(r, Tensor::Q) == n * 16);
          } else {
            CHECK(reads(r, Tensor::K) == k_seen);
            CHECK(reads(r, Tensor::Q) == q_reads);
          }
        }
        }
      }
    }
  }
}

TEST_CASE("flash3 grouped-query: K and V read once per query head, as flash2") {
  Problem p = problem(2048, 128, 2, 32, 2048);
  p.kv_heads = 8;  // 4 query heads per K/V head
  const ScheduleRun f3 = count("flash3", context(p, h200(), tiles(128, 64)));
  CHECK(reads(f3, Tensor::K) == 4 * 16 * tensor_elements(p, Tensor::K));
  CHECK(reads(f3, Tensor::V) == 4 * 16 * tensor_elements(p, Tensor::V));
  const ScheduleRun b3 = count("flash3", context(p, h200(), tiles(64, 128)), Pass::bwd);
  const ScheduleRun b2 = count("flash2", context(p, h200(), tiles(64, 128)), Pass::bwd);
  CHECK(b3.ledger.total(Level::hbm) == b2.ledger.total(Level::hbm));
}

TEST_CASE("flash3 defaults: FlashAttention-3's tiles, stages and warpgroups") {
  const HardwareSpec hw = h200();
  Problem p = problem(8192, 128, 2, 16);
  {
    const auto s = make_schedule("flash3", Pass::fwd, context(p, hw));
    CHECK(s->tiles() == TileShape{128, 176});
    CHECK(s->tile_source() == tile_source::kFa3);  // flash3 has no row in the kernel menu
    CHECK(s->kernel_config().warps == 12);  // a producer and two consumer warpgroups
    CHECK(s->kernel_config().stages == 2);
    CHECK(s->variant().empty());            // P from registers
    // Q 128·128·2 + 2 stages × (K + V) 176·128·2: 212,992 bytes; the epilogue's O over V's stages.
    CHECK(s->sram().peak() == Bytes(32768 + 4 * 45056));
    const LaunchShape l = s->kernels().front()->launch();
    CHECK(l.threads == 384);
    CHECK(l.registers_per_thread == (24 + 2 * 240) / 3);
    CHECK(s->kernels().front()->name() == "flash3_fwd");
  }
  p.causal = true;
  CHECK(make_schedule("flash3", Pass::fwd, context(p, hw))->tiles() == TileShape{128, 128});
  CHECK(make_schedule("flash3", Pass::bwd, context(p, hw))->tiles() == TileShape{64, 128});
  p.causal = false;
  CHECK(make_schedule("flash3", Pass::bwd, context(p, hw))->tiles() == TileShape{80, 128});
  const auto d64 = make_schedule("flash3", Pass::fwd, context(problem(8192, 64, 1, 16), hw));
  CHECK(d64->tiles() == TileShape{192, 192});
  CHECK(d64->kernel_config().warps == 16);  // three consumer warpgroups
  CHECK(d64->variant() == "P through shared memory");
  CHECK(d64->kernels().front()->name() == "flash3_fwd_ss");
  // Q 192·64·2 + 2 × (K + V) 192·64·2 + P 192·192·2.
  CHECK(d64->sram().peak() == Bytes(24576 + 4 * 24576 + 73728));
  // d = 192: 64 × 96, one stage, three consumer warpgroups; d = 256: 64 × 80 needs 228.5 KiB here.
  const auto bwd192 = make_schedule("flash3", Pass::bwd, context(problem(8192, 192, 1, 16), hw));
  CHECK(bwd192->tiles() == TileShape{64, 96});
  CHECK(bwd192->kernel_config().warps == 16);
  CHECK(bwd192->kernel_config().stages == 1);
  const auto bwd256 = make_schedule("flash3", Pass::bwd, context(problem(8192, 256, 1, 16), hw));
  CHECK(bwd256->tiles() == TileShape{32, 80});
  REQUIRE(bwd256->notes().size() == 1);
  CHECK(bwd256->notes().front().find("default tile B_r=64 B_c=80 needs 228.5 KiB") != std::string::npos);
  const auto bwd64 = make_schedule("flash3", Pass::bwd, context(problem(8192, 64, 1, 16), hw));
  CHECK(bwd64->tiles() == TileShape{128, 128});
  // Q, dO × 2 stages; K, V; P, dS; dQ in fp32; L, D × 2 stages in fp32.
  CHECK(bwd64->sram().peak() == Bytes(4 * 16384 + 2 * 16384 + 2 * 32768 + 32768 + 2 * 128 * 2 * 4));
}

TEST_CASE("flash3 refuses, in one line each, what FlashAttention-3 cannot run") {
  const HardwareSpec hw = h200();
  const Problem p = problem(4096, 128);
  CHECK(refusal(context(p, a100())) == "flash3: needs TMA and wgmma (sm_90, Hopper); A100 (test) is sm_80");
  CHECK(refusal(context(p, a100()), Pass::bwd).rfind("flash3: needs TMA and wgmma", 0) == 0);
  CHECK(refusal(context(problem(4096, 100), hw)).find("multiples of 8 up to 256, got d = 100") != std::string::npos);
  CHECK(refusal(context(problem(4096, 264), hw)).find("got d = 264") != std::string::npos);
  // 128 × 256 at d = 128, one stage (160 KiB of shared memory): S 128 + O 64 + P 64 + m, l 1
  // registers a thread, + 24 > 240.
  ScheduleContext one = context(p, hw, tiles(128, 256));
  one.kernel.stages = 1;
  CHECK(refusal(one) ==
        "flash3: registers: tile B_r=128 B_c=256: a consumer thread needs 257 fragment registers (S, O and P) + 24 "
        "others, more than the 240 setmaxnreg gives it (2 consumer warpgroups)");
  // 192 × 256 at d = 128: Q 48 KiB + 2 × (K + V) 64 KiB = 304 KiB of shared memory.
  CHECK(refusal(context(p, hw, tiles(192, 256))).find("does not fit: needs 304.0 KiB") != std::string::npos);
  CHECK(refusal(context(p, hw, tiles(100, 64))).rfind("flash3: warpgroups: tile B_r=100 B_c=64", 0) == 0);
  CHECK(refusal(context(p, hw, tiles(128, 40))).find("B_c of 16") != std::string::npos);
  ScheduleContext w = context(p, hw, tiles(128, 128));
  w.kernel.warps = 6;
  CHECK(refusal(w).find("--warps must be whole warpgroups of 4") != std::string::npos);
  w.kernel.warps = 24;
  CHECK(refusal(w).find("5 consumer warpgroups (24 warps)") != std::string::npos);
  CHECK(refusal(w).find("for 8, 12, 16 warps only") != std::string::npos);
  // Backward at d = 32, 128 × 256 (210 KiB of shared memory): dK, dV (2·256·32) and S, dP (2·128·256)
  // over 256 threads, 320 + 24 > 240.
  CHECK(refusal(context(problem(4096, 32), hw, tiles(128, 256)), Pass::bwd)
            .rfind("flash3: registers: tile B_r=128 B_c=256: a consumer thread needs 320", 0) == 0);
}

TEST_CASE("flash3 keeps the invariants every schedule keeps (runs_anywhere leaves it out of the generic tests)") {
  const HardwareSpec hw = h200();
  for (Pass pass : {Pass::fwd, Pass::bwd}) {
    for (bool causal : {false, true}) {
      for (const auto& t : {tiles(64, 48), tiles(128, 16), tiles(192, 64)}) {
        CAPTURE(name(pass));
        CAPTURE(causal);
        CAPTURE(*t.br);
        Problem p = problem(300, 32, 2, 4, 333);
        p.kv_heads = 2;
        p.causal = causal;
        const ScheduleContext ctx = context(p, hw, t);
        const auto s = make_schedule("flash3", pass, ctx);
        // Tile by tile counts what runs of equal tiles count.
        Ledger runs(DType::fp16), each(DType::fp16);
        s->emit(Emitter(runs, Walk::runs));
        s->emit(Emitter(each, Walk::each));
        for (Tensor x : kAllTensors) CHECK(runs.at(Level::hbm, x) == each.at(Level::hbm, x));
        CHECK(runs.flops() == each.flops());
        // The kernels' blocks one by one, each head, move what emit() counts.
        Ledger blocks(DType::fp16);
        const Emitter e(blocks, Walk::each);
        for (const Kernel* k : s->kernels()) {
          for (std::uint64_t h = 0; h < k->grid_heads(); ++h) {
            for (std::uint64_t x = 0; x < k->grid_x().count(); ++x) {
              k->block(Span{x, 1, k->grid_x().size(x), k->grid_x().begin(x)}, e);
            }
          }
        }
        for (Tensor x : kAllTensors) CHECK(blocks.at(Level::hbm, x) == runs.at(Level::hbm, x));
        const ScheduleRun r = run_schedule(*s, ctx);
        CHECK(r.lower_ratio() >= 1.0);
        // A trace (of one head) totals what the ledger counts.
        Problem one = p;
        one.batch = one.heads = 1;
        one.kv_heads = 0;
        const ScheduleContext ctx1 = context(one, hw, t);
        const auto s1 = make_schedule("flash3", pass, ctx1);
        const Trace tr = trace_schedule(*s1, ctx1);
        CHECK(tr.hbm == run_schedule(*s1, ctx1).ledger.total(Level::hbm));
        // The GPU model: DRAM reads ≤ L2 reads; the 60 MiB L2 holds it all, so writes drain once at the end.
        GpuModelOptions o;
        o.warm = false;
        const Prediction g = predict(*s, ctx, o);
        CHECK(g.dram_read().value <= (g.l2_read_sectors() + g.l2_red_sectors()) * 32);
        CHECK(g.dram_write() == g.dirty_at_end);
      }
    }
  }
}

TEST_CASE("flash3's family in the SM model: wgmma per warpgroup, no ldmatrix, TMA loads, producer left out") {
  const KernelFamily& f = family_of("flash3_fwd");
  CHECK(f.name == "fa3-fwd");
  CHECK(f.hopper.mma == MmaInstruction::wgmma);
  CHECK(f.overlap == Overlap::staggered);
  CHECK(family_of("flash3_bwd").name == "fa3-bwd");
  CHECK(register_split(f, 2)->consumer == 240);
  CHECK(register_split(f, 4) == nullptr);
  const SmRates r = sm_rates(h200(), DType::fp16);
  // wgmma at the measured cuBLAS GEMM's rate, mma.sync at its own: 756 / 636.2 TFLOP/s.
  CHECK(r.wgmma_interval * 756 == doctest::Approx(r.mma_interval * 636.2));
  HardwareSpec no_gemm = h200();
  no_gemm.measured.gemm_fp16_tflops = 0;  // not measured: the datasheet's peak
  CHECK(sm_rates(no_gemm, DType::fp16).wgmma_interval * 989.4 == doctest::Approx(r.mma_interval * 636.2));
  Segment s;
  s.matmuls = {{128, 176, 128}, {128, 128, 176}};  // S = Q Kᵀ, O += P V at 128 × 176, d = 128
  s.vector_flops = 5.0 * 128 * 176;
  s.special_ops = 128.0 * 176;
  s.load_bytes = 2.0 * 176 * 128 * 2;
  BlockShape shape;
  shape.warps = 8;  // the consumers: two warpgroups of 64 rows
  shape.stages = 2;
  const StepCost c = step_cost(s, false, false, f, shape, r);
  // Per warp: 1 m64 tile × 1 N-chunk × 8 k16 for S; 1 × 1 × 11 for P V.
  CHECK(c.mix.mma == 19);
  CHECK(c.mix.ldmatrix == 0);
  CHECK(c.mix.load == 0);
  // Tensor work per warp: 16 of each m64 tile's rows, (176/8)·8 + (128/8)·11 m16n8k16 equivalents.
  CHECK(c.warp_issue >= (22 * 8 + 16 * 11) * r.wgmma_interval);
  CHECK(c.pipelined);
  // Shared memory: per warpgroup Q's 64 rows and K for S, V for P V: 2 groups.
  const double smem = 2 * ((8 * 64 * 16) + (176 * 8 * 16) + (128 * 11 * 16)) * 2.0 + s.load_bytes;
  CHECK(c.block_smem == doctest::Approx(smem / r.smem_bytes_per_cycle));
  // The backward's grid-split products take the orientation that pads fewer rows: S = Q Kᵀ at 80 × 128
  // × 128 as Sᵀ (FlashAttention-3's swapAB): per warpgroup 64 of K's rows × 80, per warp 16 × 80 × 128
  // = 10 × 8 m16n8k16 equivalents (not 16 × 8 with Q's 80 rows split 40 + 40 and padded to 64).
  Segment b;
  b.matmuls = {{80, 128, 128}};
  // The tensor work alone: the family less its fitted overhead and waits (which only add to it).
  KernelFamily bwd = family_of("flash3_bwd");
  bwd.overhead = {};
  bwd.waits = {};
  const StepCost cb = step_cost(b, false, false, bwd, shape, r);
  CHECK(cb.mix.mma == 8);
  CHECK(cb.warp_issue == doctest::Approx(80 * r.wgmma_interval));
  CHECK(step_cost(b, false, false, family_of("flash3_bwd"), shape, r).warp_issue > cb.warp_issue);
}

TEST_CASE("flash3 is predicted faster than flash2 on the H200 (wgmma at the tensor peak, ping-pong)") {
  ScheduleContext ctx = context(problem(4096, 128, 1, 32), h200());
  GpuModelOptions g;
  g.warm = false;
  const auto f3 = make_schedule("flash3", Pass::fwd, ctx);
  const auto f2 = make_schedule("flash2", Pass::fwd, ctx);
  const TimePrediction t3 = predict_time(*f3, ctx, predict(*f3, ctx, g), ctx.hardware);
  const TimePrediction t2 = predict_time(*f2, ctx, predict(*f2, ctx, g), ctx.hardware);
  CAPTURE(t3.total_s);
  CAPTURE(t2.total_s);
  CHECK(t3.kernels.front().family == "fa3-fwd");
  CHECK(t3.total_s < t2.total_s);
  CHECK(t3.kernels.front().instructions.ldmatrix == 0);
}

TEST_CASE("iosim tiles --schedule flash3 ranks tile shapes, warpgroups and stages") {
  TileSearchSpec spec = tile_search_defaults("flash3", Pass::fwd);
  spec.sizes = {64, 128, 176, 192};
  const std::vector<TileCandidate> c = search_tiles(context(problem(1024, 128, 1, 4), h200()), spec);
  CHECK(c.size() == 4 * 4 * 3 * 2);
  std::size_t feasible = 0;
  bool three_stages = false;
  for (std::size_t i = 0; i < c.size(); ++i) {
    CAPTURE(c[i].rejected);
    if (c[i].rejected.empty()) {
      ++feasible;
      CHECK(i + 1 == feasible);
      if (i > 0) CHECK(c[i - 1].time.total_s <= c[i].time.total_s);
      three_stages = three_stages || c[i].kernel.stages == 3;
    } else {
      const std::string& r = c[i].rejected;
      CHECK((r.rfind("shared memory", 0) == 0 || r.rfind("registers", 0) == 0 || r.rfind("warpgroups", 0) == 0));
    }
  }
  CHECK(feasible > 5);
  CHECK(three_stages);
}

TEST_CASE("flash3 on the command line: runs on Hopper configs, one line and exit 2 elsewhere") {
  const CliResult ok = test::cli({"-c", "h200", "--n", "1024", "--d", "128", "--schedule", "flash3", "-f", "json"});
  CHECK(ok.code == 0);
  CHECK(ok.out.find("\"flash3\"") != std::string::npos);
  const CliResult h100 = test::cli({"-c", "h100", "--n", "1024", "--d", "64", "--schedule", "flash3", "--pass", "fwdbwd"});
  CHECK(h100.code == 0);
  const BadInput cases[] = {
      {{"-c", "a100", "--n", "1024", "--d", "64", "--schedule", "flash3"},
       "flash3: needs TMA and wgmma (sm_90, Hopper)"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--schedule", "flash3"}, "is toy"},
      {{"-c", "h200", "--n", "1024", "--d", "100", "--schedule", "flash3"}, "got d = 100"},
      {{"-c", "h200", "--n", "1024", "--d", "128", "--schedule", "flash3", "--br", "128", "--bc", "256", "--stages",
        "1"},
       "flash3: registers:"},
      {{"-c", "h200", "--n", "1024", "--d", "128", "--schedule", "flash3", "--warps", "4"}, "--warps must be whole"},
      {{"tiles", "-c", "a100", "--n", "1024", "--d", "64", "--schedule", "flash3"}, "needs TMA and wgmma"},
  };
  check_bad_inputs(cases);
}

TEST_CASE("flash3's forward over paged K/V: TMA copies of 16-row boxes for pages smaller than the tile") {
  const HardwareSpec hw = h200();
  Problem p = problem(4096, 128, 1, 16);
  p.causal = true;  // tiles 128 × 128
  const auto box_rows = [&](std::uint64_t page) {
    p.page_size = page;
    return make_schedule("flash3", Pass::fwd, context(p, hw))->kernels().front()->launch().tma_box_rows;
  };
  CHECK(box_rows(0) == 128);    // unpaged: a copy a tile
  CHECK(box_rows(16) == 16);    // eight pages a tile: a box a page
  CHECK(box_rows(64) == 16);    // two pages a tile: still the kernel's 16-row boxes
  CHECK(box_rows(128) == 128);  // a page a tile
  CHECK(box_rows(1024) == 128);
  p.page_size = 0;
  const auto bwd = make_schedule("flash3", Pass::bwd, context(p, hw));  // tiles 64 × 128: Q_i by 64 rows
  for (const Kernel* k : bwd->kernels()) {
    CAPTURE(k->name());
    CHECK(k->launch().tma_box_rows == (k->name() == "flash3_bwd" ? 64 : 0));
  }
}
