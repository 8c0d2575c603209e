// flash3 in the backend, on the CPU (no GPU needed; ctest flash3_dispatch, built where flash3 is): its
// dispatched registry entries (the kernel menu's flash3 rows) are fwd_kernels()'s overlapped kernels and
// bwd_kernels()'s, with the tile, warps and stages the model is
// configured with (as src/cli/gpu_spec.cpp's gpu_case() configures it: the first compiled tile and the
// entry's warps and stages), and the refusals (backward, tile, type, non-Hopper device, pages it cannot
// copy) are one line each.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "cuda/backend.h"
#include "cuda/kernels/flash3/refusals.h"
#include "cuda/kernels/flash3/flash3_bwd.h"
#include "cuda/kernels/flash3/flash3_fwd.h"
#include "cuda/kernels/registry.h"
#include "support/fixtures.h"

namespace {

using namespace iosim::gpu;
using iosim::DType;

KernelSpec flash3_spec(Direction pass, int d, DType t, int br, int bc) {
  KernelSpec s;
  s.schedule = "flash3";
  s.pass = pass;
  s.batch = 2;
  s.heads = 16;
  s.n = s.n_kv = 4096;
  s.d = d;
  s.dtype = t;
  s.br = br;
  s.bc = bc;
  return s;
}

bool one_line(const std::string& s) { return !s.empty() && s.find('\n') == std::string::npos; }

}  // namespace

TEST_CASE("flash3's registry entries are its list's overlapped kernels (128 x 128) and its backward kernels, 12 warps, 2 stages") {
  int overlapped = 0;
  for (const flash3::FwdKernel& k : flash3::fwd_kernels()) overlapped += k.overlap ? 1 : 0;
  std::vector<detail::KernelEntry> entries;  // the registry's dispatched flash3 entries
  int plain = 0;                             // and its plain-order ones, never dispatched
  for (const detail::KernelEntry& e : detail::kernel_registry()) {
    if (e.schedule != "flash3") continue;
    REQUIRE(e.native != nullptr);  // what fwd_kernels() and bwd_kernels() list
    if (e.dispatched) {
      entries.push_back(e);
    } else {
      CHECK(e.pass == Direction::fwd);
      ++plain;
    }
  }
  REQUIRE(overlapped > 0);  // the default build compiles fp16 d = 128 overlapped, and its backward
  REQUIRE(!flash3::bwd_kernels().empty());
  CHECK(static_cast<int>(entries.size()) == overlapped + static_cast<int>(flash3::bwd_kernels().size()));
  CHECK(plain == static_cast<int>(flash3::fwd_kernels().size()) - overlapped);
  for (const detail::KernelEntry& e : entries) {
    CAPTURE(e.d);
    CHECK(e.schedule == "flash3");
    CHECK(e.br == (e.pass == Direction::fwd || e.d == 64 ? 128 : 64));
    CHECK(e.bc == 128);
    CHECK(e.warps == 12);  // a producer warpgroup and two consumers
    CHECK(e.stages == 2);
    CHECK(static_cast<bool>(e.launch));
  }
  CHECK(compiled_tiles("flash3", Direction::fwd, 128, DType::fp16) == std::vector<std::pair<int, int>>{{128, 128}});
  CHECK(compiled_tiles("flash3", Direction::bwd, 128, DType::fp16) == std::vector<std::pair<int, int>>{{64, 128}});
  const KernelSpec sb = flash3_spec(Direction::bwd, 128, DType::fp16, 64, 128);
  CHECK(unsupported_in_build(sb).empty());
  REQUIRE(detail::find_kernel(sb) != nullptr);
  CHECK(detail::find_kernel(sb)->pass == Direction::bwd);
  const KernelSpec s = flash3_spec(Direction::fwd, 128, DType::fp16, 128, 128);
  CHECK(unsupported_in_build(s).empty());
  REQUIRE(detail::find_kernel(s) != nullptr);
  CHECK(detail::find_kernel(s)->schedule == "flash3");
  const KernelShape shape = kernel_shape(s);
  CHECK(shape.warps == 12);
  CHECK(shape.stages == 2);
  CHECK(described(s).hopper_tma);  // its loads are TMA's: L2 reads counted at the L1 side
  CHECK(!iosim::cuda_kernels("flash2")->hopper_tma);
  // flash2's entries are not flash3's, and the other way round.
  KernelSpec f2 = s;
  f2.schedule = "flash2";
  if (const detail::KernelEntry* e = detail::find_kernel(f2)) CHECK(e->schedule == "flash2");
}

TEST_CASE("flash3: another tile, warps or stages, and an uncompiled type are refused in one line") {
  const std::string bwd = unsupported_in_build(flash3_spec(Direction::bwd, 128, DType::fp16, 128, 128));
  CHECK(one_line(bwd));
  CHECK(bwd.find("the flash3 kernel has one tile, 64x128 with 12 warps") != std::string::npos);
  const std::string tile = unsupported_in_build(flash3_spec(Direction::fwd, 128, DType::fp16, 128, 176));
  CHECK(one_line(tile));
  CHECK(tile.find("the flash3 kernel has one tile, 128x128 with 12 warps") != std::string::npos);
  KernelSpec warps = flash3_spec(Direction::fwd, 128, DType::fp16, 128, 128);
  warps.warps = 8;
  CHECK(unsupported_in_build(warps).find("asked for 128x128 with 8 warps") != std::string::npos);
  KernelSpec stages = flash3_spec(Direction::fwd, 128, DType::fp16, 128, 128);
  stages.stages = 3;
  CHECK(unsupported_in_build(stages).find("3 stages") != std::string::npos);
  const std::string none = unsupported_in_build(flash3_spec(Direction::fwd, 128, DType::fp16, 0, 0));
  CHECK(none.find("no tile given") != std::string::npos);
  for (const std::pair<int, DType>& dt : {std::pair{64, DType::fp16}, std::pair{64, DType::bf16}, std::pair{128, DType::bf16}}) {
    const int d = dt.first;
    const DType t = dt.second;
    CAPTURE(d);
    const std::string why = unsupported_in_build(flash3_spec(Direction::fwd, d, t, 128, 128));
    if (compiled_tiles("flash3", Direction::fwd, d, t).empty()) {
      CHECK(one_line(why));
      CHECK(why.find("no flash3 kernel of this pass, type and head dimension in this build (compiled: fwd fp16 d=128") !=
            std::string::npos);
    } else {
      CHECK(why.empty());  // IOSIM_CUDA_FULL_TILES
    }
  }
}

TEST_CASE("flash3's forward takes paged K/V of at least 16-row pages; its backward refuses pages") {
  KernelSpec s = flash3_spec(Direction::fwd, 128, DType::fp16, 128, 128);
  s.causal = true;
  for (const int page : {16, 64, 128, 256, 4096}) {
    CAPTURE(page);
    s.page_size = page;
    CHECK(unsupported_in_build(s).empty());
    s.window = 1000;  // with a window too
    CHECK(unsupported_in_build(s).empty());
    s.window = 0;
  }
  s.page_size = 8;
  const std::string small = unsupported_in_build(s);
  CHECK(one_line(small));
  CHECK(small.find("--page-size must be at least 16 for the flash3 fwd kernel") != std::string::npos);
  KernelSpec bwd = flash3_spec(Direction::bwd, 128, DType::fp16, 64, 128);
  bwd.page_size = 64;
  const std::string why = unsupported_in_build(bwd);
  CHECK(one_line(why));
  CHECK(why.find("--page-size: the flash3 bwd kernel has no paged K/V") != std::string::npos);
}

TEST_CASE("flash3 runs on compute capability 9.0 only") {
  DeviceInfo dev;
  dev.name = "NVIDIA H200";
  dev.cc_major = 9;
  dev.cc_minor = 0;
  CHECK(detail::flash3_unsupported_on(dev).empty());
  for (const std::pair<int, int>& cc : {std::pair{8, 0}, std::pair{8, 9}, std::pair{10, 0}, std::pair{12, 0}}) {
    const int major = cc.first, minor = cc.second;
    dev.name = "some GPU";
    dev.cc_major = major;
    dev.cc_minor = minor;
    const std::string why = detail::flash3_unsupported_on(dev);
    CHECK(one_line(why));
    CHECK(why == "flash3 needs a Hopper GPU (sm_90a: TMA and wgmma, compute capability 9.0); some GPU is " +
                     std::to_string(major) + "." + std::to_string(minor));
  }
}

TEST_CASE("the model of flash3, given the kernel's tile, warps and stages as measure gives them, is that kernel") {
  for (const bool causal : {false, true}) {
    CAPTURE(causal);
    KernelSpec s = flash3_spec(Direction::fwd, 128, DType::fp16, 0, 0);
    s.causal = causal;
    const auto tiles = compiled_tiles("flash3", Direction::fwd, 128, DType::fp16);
    REQUIRE(!tiles.empty());
    s.br = tiles.front().first;
    s.bc = tiles.front().second;
    const KernelShape shape = kernel_shape(s);
    iosim::Problem p = iosim::test::problem(4096, 128, 2, 16);
    p.causal = causal;
    iosim::ScheduleContext ctx = iosim::test::context(p, iosim::test::hopper(),
                                                      iosim::test::tiles(static_cast<std::uint64_t>(s.br),
                                                                         static_cast<std::uint64_t>(s.bc)));
    ctx.kernel = {static_cast<std::uint32_t>(shape.warps), static_cast<std::uint32_t>(shape.stages)};
    const auto model = iosim::make_schedule("flash3", iosim::Pass::fwd, ctx);
    CHECK(model->tiles().br == 128u);
    CHECK(model->tiles().bc == 128u);
    CHECK(model->kernel_config().warps == 12u);  // one producer and two consumer warpgroups
    CHECK(model->kernel_config().stages == 2u);
    CHECK(model->variant().empty());  // P in registers (RS), as the kernel keeps it
  }
}
