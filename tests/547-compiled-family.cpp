// A compiled family: flash2's forward priced from a compiled kernel's record (--kernels triton) — here a
// hand-written record, so no compiler is needed: its loop's pipe counts become the step's instructions,
// its registers and shared memory the occupancy and the feasibility, and a causal block's diagonal
// steps take the masked loop's counts.
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

#include "sim/schedule/compiled_kernel.h"
#include "sim/schedule/kernel_family.h"
#include "sim/timing/compiled_launch.h"
#include "sim/timing/compiled_step.h"
#include "sim/timing/sm_model.h"
#include "sim/timing/step_profile.h"
#include "sim/timing/time_model.h"
#include "sim/tiles/search.h"
#include "src/config/compiled_record.h"
#include "src/config/hardware_config.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

namespace {

HardwareSpec h200() { return config::load_hardware(std::string(IOSIM_SOURCE_DIR) + "/configs/h200.yaml"); }

/// A record shaped like Triton 3.6's attn_fwd at 128 × 64, d = 64, 4 warps, 3 stages (its real figures
/// rounded): 16 HGMMA.64x64x16 an iteration, 68 MUFU, 391 ALU.
CompiledKernel record(std::uint32_t registers = 206, std::uint64_t shared = 65536, double alu = 391) {
  CompiledKernel k;
  k.source = "Triton test, sm_90";
  k.config = "attn_fwd fp16 d=64 128x64 warps=4 stages=3 sm_90";
  k.block_m = 128;
  k.block_n = 64;
  k.head_dim = 64;
  k.warps = 4;
  k.stages = 3;
  k.registers = registers;
  k.shared_bytes = shared;
  k.unmasked.pipes = {16, 68, alu, 36, 3, 10, 16, 6, 1};
  k.unmasked.mma_per_warp = 16 * 8;  // N = 64: 8 m16n8k16s a warp each
  k.unmasked.block_barriers = 2;
  k.prologue.pipes = {0, 2, 178, 19, 15, 28, 0, 3, 82};
  k.epilogue.pipes = {0, 4, 466, 0, 19, 9, 0, 8, 3};
  return k;
}

ScheduleContext ctx_with(const CompiledKernel& k, bool causal = false) {
  Problem p = problem(4096, 64, 1, 16);
  p.causal = causal;
  ScheduleContext ctx = context(p, h200(), tiles(k.block_m, k.block_n));
  ctx.kernel = {k.warps, k.stages, KernelSource::triton, std::make_shared<const CompiledKernel>(k)};
  return ctx;
}

TimePrediction timed(const ScheduleContext& ctx) {
  const auto s = make_schedule("flash2", Pass::fwd, ctx);
  return predict_time(*s, ctx, predict(*s, ctx), ctx.hardware);
}

}  // namespace

TEST_CASE("--kernels triton names the compiled family, priced from its record") {
  CHECK(family_of("flash2_fwd", KernelSource::triton).name == "triton-fa2-fwd");
  CHECK(family_of("flash2_fwd", KernelSource::triton).model == FamilyModel::compiled);
  const TimePrediction t = timed(ctx_with(record()));
  REQUIRE(t.kernels.size() == 1);
  CHECK(t.kernels[0].family == "triton-fa2-fwd");
  CHECK(t.kernels[0].registers == 206);
  CHECK(t.total_s > 0);
}

TEST_CASE("a compiled family without its record is an error, not the fitted family") {
  ScheduleContext ctx = ctx_with(record());
  ctx.kernel.compiled = nullptr;
  CHECK_THROWS_AS((void)timed(ctx), InputError);
}

TEST_CASE("more ALU work an iteration is not faster") {
  double last = 0;
  for (double alu : {100.0, 391.0, 1500.0, 4000.0}) {
    const double t = timed(ctx_with(record(206, 65536, alu))).total_s;
    CHECK(t >= last);
    last = t;
  }
}

TEST_CASE("more registers, fewer blocks an SM") {
  const TimePrediction few = timed(ctx_with(record(96)));
  const TimePrediction many = timed(ctx_with(record(206)));
  CHECK(few.kernels[0].blocks_per_sm > many.kernels[0].blocks_per_sm);
  CHECK(many.kernels[0].limited_by == "registers");
}

TEST_CASE("shared memory over the limit is rejected with its reason") {
  const HardwareSpec hw = h200();
  const CompiledKernel big = record(128, hw.sm.sram_per_block.value + 1024);
  const std::string why = compiled_launch_refusal(big, hw.sm);
  CHECK(why.rfind("shared memory:", 0) == 0);
  CHECK(compiled_launch_refusal(record(), hw.sm).empty());
  CompiledKernel failed = record();
  failed.error = "attn_fwd fp16 d=64 256x256 warps=4 stages=3 sm_90: OutOfResources: shared memory";
  CHECK(compiled_launch_refusal(failed, hw.sm) == failed.error);

  // In the tile search, each reason lands on its candidate.
  TileSearchSpec spec = triton_tile_search_defaults("flash2", Pass::fwd);
  spec.sizes = {64, 128};
  spec.warps = {4};
  spec.stages = {3};
  spec.threads = 1;
  for (std::uint64_t br : spec.sizes) {
    for (std::uint64_t bc : spec.sizes) {
      CompiledKernel k = record(br == 128 && bc == 128 ? 128 : 206, br == 128 && bc == 128 ? big.shared_bytes : 65536);
      k.block_m = br;
      k.block_n = bc;
      if (br == 64 && bc == 128) k.error = "attn_fwd 64x128: the compiler's reason";
      spec.compiled.push_back(std::make_shared<const CompiledKernel>(k));
    }
  }
  const auto found = search_tiles(context(problem(4096, 64, 1, 16), hw), spec);
  REQUIRE(found.size() == 4);
  int ok = 0;
  for (const TileCandidate& c : found) {
    if (c.rejected.empty()) {
      ++ok;
      CHECK(c.priced_from == "Triton test, sm_90");
    } else if (c.tiles.bc == 128 && c.tiles.br == 64) {
      CHECK(c.rejected == "Triton: attn_fwd 64x128: the compiler's reason");
    } else {
      CHECK(c.rejected.rfind("shared memory:", 0) == 0);
    }
  }
  CHECK(ok == 2);
}

TEST_CASE("a causal block's diagonal steps run the masked loop") {
  CompiledKernel k = record();
  k.has_masked = true;
  k.masked = k.unmasked;
  k.masked.pipes.alu += 500;  // the mask's selects and compares
  const ScheduleContext ctx = ctx_with(k, true);
  const auto s = make_schedule("flash2", Pass::fwd, ctx);
  const KernelProfile kp = profile_kernel(*s->kernels()[0], DType::fp16);
  // The last Q tile's block: unmasked steps, then the diagonal's.
  const BlockProfile& b = kp.distinct[kp.profile_of_x.back()];
  int masked = 0, unmasked = 0;
  for (std::size_t i = 0; i < b.runs.size(); ++i) {
    const Segment& seg = b.runs[i].segment;
    if (seg.matmuls.empty()) continue;
    const CompiledCode code = compiled_code_of(seg, false, k);
    if (code.pipes.alu == k.masked.pipes.alu) masked += static_cast<int>(b.runs[i].count);
    if (code.pipes.alu == k.unmasked.pipes.alu) unmasked += static_cast<int>(b.runs[i].count);
  }
  CHECK(masked == 2);  // B_r 128 over B_c 64: two K/V tiles cross the diagonal
  CHECK(unmasked > 0);
  // Dearer masked iterations make the diagonal block slower (the block, not the whole grid, whose list
  // scheduling of unequal blocks need not be monotonic).
  CompiledKernel cheap = k;
  cheap.masked = k.unmasked;
  const SmRates rates = sm_rates(ctx.hardware, DType::fp16);
  const BlockShape shape{4, 3, 1};
  const KernelFamily& f = family_of("flash2_fwd", KernelSource::triton);
  CHECK(block_time(b, f, shape, rates, 2, &k).cycles > block_time(b, f, shape, rates, 2, &cheap).cycles);
}

TEST_CASE("a record in family.py's JSON reads into the model's struct") {
  const std::string json = R"({"config": {"kernel": "attn_fwd", "block_m": 128, "block_n": 64, "head_dim": 64,
    "causal": false, "num_warps": 4, "num_stages": 3, "dtype": "fp16", "arch": 90}, "triton_version": "3.6.0",
    "target": "cuda:90", "registers": 206, "spills": 0, "shared_bytes": 65536, "error": null,
    "loops": [{"role": "unmasked", "per_iteration": {"tensor": 16, "mufu": 68, "alu": 391, "uniform": 36,
      "shared": 3, "global": 10, "shuffle": 16, "barrier": 6, "other": 1},
      "tensor_opcodes_per_iteration": {"HGMMA.64x64x16.F32": 16}, "block_barriers_per_iteration": 2}],
    "prologue": {"counts": {"alu": 178}, "opcodes": {"BAR": 1}, "tensor_opcodes": {}},
    "epilogue": {"counts": {"alu": 466}, "opcodes": {}, "tensor_opcodes": {}}})";
  const CompiledKernel k = config::parse_compiled_record(json);
  CHECK(k.source == "Triton 3.6.0, sm_90");
  CHECK(k.registers == 206);
  CHECK(k.unmasked.pipes.tensor == 16);
  CHECK(k.unmasked.mma_per_warp == 16 * 8);
  CHECK(k.unmasked.warpgroup_mma);
  CHECK(k.prologue.block_barriers == 1);
  CHECK(config::mma_per_warp_of("HGMMA.64x128x16.F32") == 16);
  CHECK(config::mma_per_warp_of("HMMA.16816.F32") == 1);
  CHECK_THROWS_AS((void)config::parse_compiled_record(R"({"config": {"block_m": 1}})"), InputError);
}

namespace {

/// Records shaped like the backward's three kernels at 64 × 64, d = 64, 4 warps, 3 stages (hand-written,
/// no compiler): the preprocess without a loop, the dK/dV and dQ kernels with one each.
std::vector<std::shared_ptr<const CompiledKernel>> backward_records(double dq_alu = 300) {
  const auto make = [](const char* kernel, std::uint32_t registers, std::uint64_t shared, double alu, double mma) {
    CompiledKernel k = record(registers, shared, alu);
    k.kernel = kernel;
    k.block_m = k.block_n = 64;
    k.config = std::string(kernel) + " fp16 d=64 64x64 warps=4 stages=3 sm_90";
    k.unmasked.mma_per_warp = mma;
    return std::make_shared<const CompiledKernel>(k);
  };
  auto pre = std::make_shared<CompiledKernel>(*make("attn_bwd_preprocess", 38, 0, 0, 0));
  pre->unmasked = {};
  return {pre, make("attn_bwd_dkdv", 168, 49152, 400, 4 * 8 * 4), make("attn_bwd_dq", 128, 32768, dq_alu, 3 * 8 * 4)};
}

ScheduleContext bwd_ctx(std::vector<std::shared_ptr<const CompiledKernel>> set) {
  ScheduleContext ctx = context(problem(4096, 64, 1, 16), h200(), tiles(64, 64));
  ctx.kernel = {4, 3, KernelSource::triton, nullptr, std::move(set)};
  return ctx;
}

TimePrediction timed_bwd(const ScheduleContext& ctx) {
  const auto s = make_schedule("flash2", Pass::bwd, ctx);
  return predict_time(*s, ctx, predict(*s, ctx), ctx.hardware);
}

}  // namespace

TEST_CASE("--kernels triton prices the backward's three kernels, each from its own record") {
  const TimePrediction t = timed_bwd(bwd_ctx(backward_records()));
  REQUIRE(t.kernels.size() == 3);
  const std::uint32_t registers[] = {38, 168, 128};
  for (std::size_t i = 0; i < 3; ++i) {
    CAPTURE(t.kernels[i].name);
    CHECK(t.kernels[i].family == "triton-fa2-bwd");
    CHECK(t.kernels[i].registers == registers[i]);
    CHECK(t.kernels[i].total_s > 0);
  }
  // More ALU work in the dQ kernel's loop: that kernel, and only it, is slower.
  const TimePrediction dear = timed_bwd(bwd_ctx(backward_records(3000)));
  CHECK(dear.kernels[2].total_s > t.kernels[2].total_s);
  CHECK(dear.kernels[1].total_s == t.kernels[1].total_s);
}

TEST_CASE("a backward kernel without its record is an error, not another kernel's record") {
  auto set = backward_records();
  set.pop_back();  // no attn_bwd_dq
  CHECK_THROWS_AS((void)timed_bwd(bwd_ctx(set)), InputError);
}

TEST_CASE("tiles --pass bwd: a candidate is priced from its three records, or rejected with one's reason") {
  TileSearchSpec spec = triton_tile_search_defaults("flash2", Pass::bwd);
  spec.sizes = {64};
  spec.warps = {4};
  spec.stages = {3};
  spec.compiled = backward_records();
  auto found = search_tiles(context(problem(4096, 64, 1, 16), h200()), spec);
  REQUIRE(found.size() == 1);
  CHECK(found[0].rejected == "");
  CHECK(found[0].priced_from == "Triton test, sm_90");
  auto broken = std::make_shared<CompiledKernel>(*spec.compiled[2]);
  broken->error = "attn_bwd_dq 64x64: the compiler's reason";
  spec.compiled[2] = broken;
  found = search_tiles(context(problem(4096, 64, 1, 16), h200()), spec);
  CHECK(found[0].rejected == "Triton: attn_bwd_dq 64x64: the compiler's reason");
}

TEST_CASE("the preprocess's record has no loop; a loop kernel's must have one") {
  const std::string head = R"({"config": {"kernel": ")";
  const std::string tail = R"(", "block_m": 64, "block_n": 64, "head_dim": 64,
    "causal": false, "num_warps": 4, "num_stages": 3, "dtype": "fp16", "arch": 90}, "triton_version": "3.6.0",
    "target": "cuda:90", "registers": 38, "spills": 0, "shared_bytes": 0, "error": null, "loops": [],
    "prologue": {"counts": {"alu": 142}, "opcodes": {}, "tensor_opcodes": {}},
    "epilogue": {"counts": {}, "opcodes": {}, "tensor_opcodes": {}}})";
  const CompiledKernel k = config::parse_compiled_record(head + "attn_bwd_preprocess" + tail);
  CHECK(k.kernel == "attn_bwd_preprocess");
  CHECK(k.prologue.pipes.alu == 142);
  CHECK_THROWS_AS((void)config::parse_compiled_record(head + "attn_bwd_dq" + tail), InputError);
}

TEST_CASE("a loop's counts are per tile by its products, whatever the counter's step said") {
  // attn_bwd_dkdv at 64 x 64, d = 64, 4 warps (one warpgroup): one Q tile is 4 products of 64·64·64
  // multiply-adds, 16 HGMMA.64x64x16 (65536 each). A record that took a pointer's step for the counter
  // (768 tiles a trip) divided them by 768; read back, an iteration holds one tile's again.
  const auto json = [](double per_trip, double tensor) {
    const std::string t = std::to_string(tensor);
    return R"({"config": {"kernel": "attn_bwd_dkdv", "block_m": 64, "block_n": 64, "head_dim": 64,
      "causal": false, "num_warps": 4, "num_stages": 3, "dtype": "fp16", "arch": 90}, "triton_version": "3.6.0",
      "target": "cuda:90", "registers": 168, "spills": 0, "shared_bytes": 49152, "error": null,
      "loops": [{"role": "unmasked", "iterations_per_trip": )" + std::to_string(per_trip) +
           R"(, "per_iteration": {"tensor": )" + t + R"(, "alu": )" + std::to_string(300 * tensor / 16) +
           R"(}, "tensor_opcodes_per_iteration": {"HGMMA.64x64x16.F32": )" + t + R"(}}],
      "prologue": {"counts": {}, "opcodes": {}, "tensor_opcodes": {}},
      "epilogue": {"counts": {}, "opcodes": {}, "tensor_opcodes": {}}})";
  };
  const CompiledKernel right = config::parse_compiled_record(json(1, 16));
  const CompiledKernel misread = config::parse_compiled_record(json(768, 16.0 / 768));
  CHECK(right.unmasked.pipes.tensor == doctest::Approx(16));
  CHECK(misread.unmasked.pipes.tensor == doctest::Approx(16).epsilon(1e-4));  // to_string keeps 6 decimals
  CHECK(misread.unmasked.pipes.alu == doctest::Approx(300).epsilon(1e-4));
  CHECK(misread.unmasked.mma_per_warp == doctest::Approx(16 * 8).epsilon(1e-4));
  // More products than one tile's (two warpgroups on the same rows, say) prove nothing: left as read.
  const CompiledKernel doubled = config::parse_compiled_record(json(1, 32));
  CHECK(doubled.unmasked.pipes.tensor == doctest::Approx(32));
}
