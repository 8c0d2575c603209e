// A step's instructions: the compiled variants' SASS (the menu's table cuda/kernels/step-mix-sm90.csv,
// compiled in as kernel_menu::kStepMix) where a problem runs one of iosim's kernels at such a variant,
// and the family's fitted step overhead elsewhere; the time model says which priced the kernel.
#include <doctest/doctest.h>

#include <algorithm>
#include <memory>
#include <string>

#include "sim/schedule/kernel_registers.h"
#include "sim/schedule/kernel_step_mix.h"
#include "sim/timing/time_model.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

namespace {

/// An H100-like GPU (sm_90, the H200's shared memory, for which the menu was built).
HardwareSpec sm90() {
  HardwareSpec hw = a100();
  hw.arch = "sm_90";
  hw.sm.sram_per_block = hw.sm.sram_per_sm = Bytes(232448);
  return hw;
}

/// flash2's forward at variant `m` on `hw` with kernels of `source`: n = 4096, causal with a sliding
/// window of `window` keys where `causal`.
ScheduleContext flash2_fwd_context(const kernel_menu::StepMix& m, const HardwareSpec& hw, KernelSource source,
                                   bool causal = false, std::uint64_t window = 0) {
  Problem p = problem(4096, m.d);
  p.dtype = m.bf16 ? DType::bf16 : DType::fp16;
  p.causal = causal;
  p.window = window;
  ScheduleContext ctx = context(p, hw, tiles(m.br, m.bc));
  ctx.kernel = {m.warps, m.stages, source};
  return ctx;
}

/// The time of flash2's forward at variant `m` on `hw` with kernels of `source` (its one kernel).
KernelTime flash2_fwd_time(const kernel_menu::StepMix& m, const HardwareSpec& hw, KernelSource source,
                           bool causal = false, std::uint64_t window = 0) {
  const ScheduleContext ctx = flash2_fwd_context(m, hw, source, causal, window);
  const auto s = make_schedule("flash2", Pass::fwd, ctx);
  return predict_time(*s, ctx, predict(*s, ctx), ctx.hardware).kernels.at(0);
}

const kernel_menu::StepMix* first_fp16(std::string_view kernel, std::string_view step = "unmasked") {
  for (const kernel_menu::StepMix& m : kernel_menu::kStepMix) {
    if (m.kernel == kernel && m.arch == "sm_90" && !m.bf16 && m.step == step) return &m;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("each step-mix row is a compiled variant whose pipes add up to its total") {
  CHECK(!kernel_menu::kStepMix.empty());
  for (const kernel_menu::StepMix& m : kernel_menu::kStepMix) {
    CAPTURE(m.kernel);
    CAPTURE(m.d);
    CAPTURE(m.br);
    CAPTURE(m.bc);
    CHECK(m.tensor + m.mufu + m.alu + m.uniform + m.shared + m.global + m.shuffle + m.barrier + m.other == m.total);
    // A producer warp's step issues loads only; every other step its products.
    CHECK((m.tensor > 0) == (m.step != "producer"));
    if (m.kernel.starts_with("flash3")) {
      // sm_90a's kernels have no ptxas row (their registers are setmaxnreg's): the menu's default tile.
      CHECK(std::any_of(kernel_menu::kDefaults.begin(), kernel_menu::kDefaults.end(), [&](const auto& k) {
        return k.schedule == "flash3" && k.forward == m.kernel.starts_with("flash3_fwd") && k.d == m.d &&
               k.br == m.br && k.bc == m.bc && k.warps == m.warps && k.stages == m.stages && k.arch == "sm90a";
      }));
    } else {
      CHECK(compiled_variant(m.kernel, m.d, m.bf16 ? DType::bf16 : DType::fp16, m.br, m.bc, m.warps, m.stages,
                             m.arch) != nullptr);
    }
    CHECK(step_mix_variant(m.kernel, m.d, m.bf16 ? DType::bf16 : DType::fp16, m.br, m.bc, m.warps, m.stages,
                           m.arch, m.step) == &m);
    // Every variant with a masked or producer step has its unmasked one, which runs no more instructions
    // than a masked step (a producer's step is another warp's).
    if (m.step != "unmasked") {
      const kernel_menu::StepMix* plain = step_mix_variant(m.kernel, m.d, m.bf16 ? DType::bf16 : DType::fp16, m.br,
                                                           m.bc, m.warps, m.stages, m.arch);
      REQUIRE(plain != nullptr);
      if (m.step != "producer") CHECK(plain->total <= m.total);
    }
  }
}

TEST_CASE("the time model prices a variant the SASS table has from it, any other from the fit, and says which") {
  const kernel_menu::StepMix* m = first_fp16("flash2_fwd");
  REQUIRE(m != nullptr);
  REQUIRE(m->step == "unmasked");
  const KernelTime sass = flash2_fwd_time(*m, sm90(), KernelSource::iosim);
  CHECK(sass.overhead_from == OverheadSource::sass);
  CHECK(name(sass.overhead_from) == "sass");
  // Every K/V step issues the SASS's count (its products the schedule's own, as many as the SASS's):
  // over the grid, instructions per product as in one step of the SASS (the Q load and O store
  // segments add a little).
  const double per_mma = sass.instructions.total() / sass.instructions.mma;
  CHECK(per_mma >= static_cast<double>(m->total) / m->tensor * 0.999);
  CHECK(per_mma <= static_cast<double>(m->total) / m->tensor * 1.03);

  // Another architecture, or PyTorch's kernels at the same tile: the table does not apply.
  HardwareSpec other = sm90();
  other.arch = "sm_89";
  const KernelTime elsewhere = flash2_fwd_time(*m, other, KernelSource::iosim);
  CHECK(elsewhere.overhead_from == OverheadSource::fit);
  CHECK(name(elsewhere.overhead_from) == "fit");
  CHECK(flash2_fwd_time(*m, sm90(), KernelSource::pytorch).overhead_from == OverheadSource::fit);
}

TEST_CASE("a masked step is priced from the masked row, the window's copy where the problem has a window") {
  const kernel_menu::StepMix* window = first_fp16("flash2_fwd", "window");
  REQUIRE(window != nullptr);
  const auto row = [&](std::string_view step) {
    return step_mix_variant(window->kernel, window->d, DType::fp16, window->br, window->bc, window->warps,
                            window->stages, window->arch, step);
  };
  const kernel_menu::StepMix* masked = row("masked");
  REQUIRE(masked != nullptr);
  REQUIRE(row("unmasked") != nullptr);
  const auto mixes = [&](bool causal, std::uint64_t w) {
    const ScheduleContext ctx = flash2_fwd_context(*window, sm90(), KernelSource::iosim, causal, w);
    const auto s = make_schedule("flash2", Pass::fwd, ctx);
    const Kernel& k = *s->kernels().at(0);
    return kernel_step_mix(k.name(), k.launch(), ctx);
  };
  CHECK(mixes(false, 0).unmasked == row("unmasked"));
  CHECK(mixes(true, 0).masked == masked);
  CHECK(mixes(true, 64).masked == window);
  CHECK(mixes(false, 0).masked == masked);  // priced so, though no step of it is masked

  // A window narrower than a K/V tile: every step crosses the diagonal or the window's edge, so every
  // step issues the window's count (the Q load and O store segments add a little).
  const KernelTime narrow = flash2_fwd_time(*window, sm90(), KernelSource::iosim, true, 1);
  CHECK(narrow.overhead_from == OverheadSource::sass);
  const double per_mma = narrow.instructions.total() / narrow.instructions.mma;
  CHECK(per_mma >= static_cast<double>(window->total) / window->tensor * 0.999);
  CHECK(per_mma <= static_cast<double>(window->total) / window->tensor * 1.1);
}

namespace {

/// flash2's backward at variant `m` (n = 4096) on `hw` with kernels of `source`: its main kernel's time.
KernelTime flash2_bwd_time(const kernel_menu::StepMix& m, const HardwareSpec& hw, KernelSource source) {
  Problem p = problem(4096, m.d);
  p.dtype = m.bf16 ? DType::bf16 : DType::fp16;
  ScheduleContext ctx = context(p, hw, tiles(m.br, m.bc));
  ctx.kernel = {m.warps, m.stages, source};
  const auto s = make_schedule("flash2", Pass::bwd, ctx);
  for (const KernelTime& k : predict_time(*s, ctx, predict(*s, ctx), ctx.hardware).kernels) {
    if (k.name == "flash2_bwd") return k;
  }
  FAIL("no flash2_bwd kernel");
  return {};
}

}  // namespace

TEST_CASE("a backward Q step's SASS: its products' m16n8k16s, one exp2 a score, warp 0's loads and atomics") {
  int rows = 0;
  for (const kernel_menu::StepMix& m : kernel_menu::kStepMix) {
    if (m.kernel != "flash2_bwd") continue;
    ++rows;
    CAPTURE(m.d);
    CAPTURE(m.br);
    CAPTURE(m.bc);
    CAPTURE(m.warps);
    const std::uint64_t threads = 32ull * m.warps;
    // The mask is computed without a branch: one kind of step.
    CHECK(m.step == "unmasked");
    // S, dP (B_r × B_c × d), dV, dK (B_c × d × B_r), dQ (B_r × d × B_c): five products of B_r·B_c·d
    // multiply-adds, 16·8·16 an mma.sync, shared by the warps.
    CHECK(m.tensor == 5 * m.br * m.bc * m.d / (16 * 8 * 16) / m.warps);
    CHECK(m.mufu == m.br * m.bc / threads);  // P = exp2(…): one a score
    // Warp 0: its rows' L and D (two loads a trip of the statistics' loop), Q_i and dO_i by 16-byte
    // cp.async, one commit, and one RED a trip of the atomics' loop (B_r·d / threads).
    const std::uint64_t stat_trips = (m.br + threads - 1) / threads;
    CHECK(m.global == 2 * stat_trips + 2 * m.br * m.d / 8 / threads + 1 + m.br * m.d / threads);
    CHECK(m.barrier == 4);  // three block barriers and the cp.async wait
  }
  CHECK(rows > 0);
}

TEST_CASE("the time model prices flash2's backward from its SASS where the table has the variant") {
  const kernel_menu::StepMix* m = first_fp16("flash2_bwd");
  REQUIRE(m != nullptr);
  const KernelTime sass = flash2_bwd_time(*m, sm90(), KernelSource::iosim);
  CHECK(sass.overhead_from == OverheadSource::sass);
  // Every Q step issues the SASS's count: over the kernel, instructions per mma as in one step (the
  // K/V loads and the dK, dV stores add a little).
  const double per_mma = sass.instructions.total() / sass.instructions.mma;
  CHECK(per_mma >= static_cast<double>(m->total) / m->tensor * 0.999);
  CHECK(per_mma <= static_cast<double>(m->total) / m->tensor * 1.05);
  HardwareSpec other = sm90();
  other.arch = "sm_89";
  CHECK(flash2_bwd_time(*m, other, KernelSource::iosim).overhead_from == OverheadSource::fit);
  CHECK(flash2_bwd_time(*m, sm90(), KernelSource::pytorch).overhead_from == OverheadSource::fit);
}

TEST_CASE("a flash3 forward K/V step's SASS: its products' wgmmas, one exp2 a score, a consumer warp's waits") {
  int rows = 0;
  for (const kernel_menu::StepMix& m : kernel_menu::kStepMix) {
    if (m.kernel != "flash3_fwd" || m.step == "producer") continue;
    ++rows;
    CAPTURE(m.d);
    CAPTURE(m.bf16);
    CAPTURE(m.step);
    // A producer warpgroup and B_r / 64 consumer warpgroups, each of 64 rows: the step is a consumer warp's.
    const std::uint64_t groups = m.br / 64;
    REQUIRE(m.warps == 4 * (groups + 1));
    const std::uint64_t threads = 128 * groups;
    // Each warp of a warpgroup issues its warpgroup's wgmmas: S = Q K_jᵀ (64 × B_c × d) as 64 × B_c × 16
    // wgmmas, O += P V (64 × d × B_c) as 64 × d × 16.
    const std::uint64_t rows_per_group = m.br / groups;
    CHECK(m.tensor == rows_per_group * m.bc * m.d / (64 * m.bc * 16) + rows_per_group * m.d * m.bc / (64 * m.d * 16));
    // exp2 of every score, and α for each of a thread's two rows.
    CHECK(m.mufu == m.br * m.bc / threads + 2);
    CHECK(m.shuffle == 2 * 2);  // the row max over a quad: two rounds, two rows
    // The ping-pong's sync and arrive, two stage waits (one try each), two wgmma batches (arrive, wait)
    // and two stage releases.
    CHECK(m.barrier == 2 + 2 + 2 * 2 + 2);
    CHECK(m.global == 0);  // the producer's TMA
    CHECK(m.shared == 0);  // wgmma reads shared memory through its descriptors
  }
  CHECK(rows > 0);
}

TEST_CASE("a flash3 forward producer step's SASS: a K and a V tile by TMA, a stage acquire each") {
  int rows = 0;
  for (const kernel_menu::StepMix& m : kernel_menu::kStepMix) {
    if (m.kernel != "flash3_fwd" || m.step != "producer") continue;
    ++rows;
    CAPTURE(m.d);
    CAPTURE(m.bf16);
    CHECK(m.tensor == 0);
    CHECK(m.mufu == 0);
    CHECK(m.shuffle == 0);
    CHECK(m.shared == 0);
    // One TMA copy a box of 128-byte rows (16-bit elements: d · 2 bytes a row), for K_j and V_{j−1}.
    CHECK(m.global == 2 * (m.d * 2 / 128));
    // Each tile's stage: wait for it empty (its first try), arrive expecting the tile's bytes.
    CHECK(m.barrier == 2 * 2);
  }
  // Every flash3 forward variant with consumer rows has its producer's.
  CHECK(rows == std::count_if(kernel_menu::kStepMix.begin(), kernel_menu::kStepMix.end(), [](const auto& m) {
          return m.kernel == "flash3_fwd" && m.step == "unmasked";
        }));
  CHECK(rows > 0);
}
