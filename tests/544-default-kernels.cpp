// A schedule's default kernel, where it says it takes the kernel menu's (tile source "kernel menu"), is a
// kernel of the menu (cuda/kernels/menu.csv) whole — tile, warps and stages — for the config's
// architecture: a default the project cannot run would be priced from the fitted register and overhead
// models instead of the compiled kernel's records.
#include <doctest/doctest.h>

#include <string>

#include "sim/schedule/kernel_menu.h"
#include "sim/schedule/registry.h"
#include "src/config/hardware_config.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

namespace {

/// Whether any kernel of the menu runs on `arch`.
bool menu_runs_on(std::string_view arch) {
  for (const kernel_menu::Kernel& k : kernel_menu::kKernels) {
    if (menu_arch_runs_on(k.arch, arch)) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("menu architectures: sm80's kernels run on sm_80 and later, sm90a's on sm_90 alone") {
  CHECK(menu_arch_runs_on("sm80", "sm_80"));
  CHECK(menu_arch_runs_on("sm80", "sm_90"));
  CHECK_FALSE(menu_arch_runs_on("sm80", "sm_75"));
  CHECK_FALSE(menu_arch_runs_on("sm80", "toy"));
  CHECK(menu_arch_runs_on("sm90a", "sm_90"));
  CHECK(menu_arch_runs_on("sm90a", "sm_90a"));
  CHECK(menu_arch_runs_on("sm80", "sm_90a"));
  CHECK_FALSE(menu_arch_runs_on("sm80", "sm_90b"));
  CHECK_FALSE(menu_arch_runs_on("sm80", "sm_"));
  CHECK_FALSE(menu_arch_runs_on("sm90a", "sm_80"));
  CHECK_FALSE(menu_arch_runs_on("sm90a", "sm_100"));
}

TEST_CASE("a default kernel taken from the menu is one of the menu's, on every shipped config whose arch has one") {
  std::size_t checked = 0, flash2_bwd = 0;
  for (const char* config : {"a100.yaml", "a100-80gb.yaml", "h100.yaml", "h200.yaml", "teaching.yaml"}) {
    const HardwareSpec hw = config::load_hardware(std::string(IOSIM_SOURCE_DIR) + "/configs/" + config);
    if (!menu_runs_on(hw.arch)) continue;
    for (const ScheduleEntry& e : schedule_catalog()) {
      for (const Pass pass : {Pass::fwd, Pass::bwd}) {
        if (e.factory(pass) == nullptr) continue;
        for (const int d : kernel_menu::kHeadDims) {
          for (const DType dtype : {DType::fp16, DType::bf16}) {
            Problem p = problem(4096, static_cast<std::uint64_t>(d));
            p.dtype = dtype;
            const ScheduleContext ctx = context(p, hw);
            std::unique_ptr<Schedule> s;
            try {
              s = make_schedule(std::string(e.name), pass, ctx);
            } catch (const InputError&) {
              continue;  // the schedule refuses this GPU or problem (flash3 off Hopper)
            }
            if (s->tile_source() != tile_source::kMenu) continue;
            const KernelRequest k = s->kernel_config();
            CAPTURE(config);
            CAPTURE(e.name);
            CAPTURE(pass == Pass::fwd ? "fwd" : "bwd");
            CAPTURE(d);
            CAPTURE(dtype == DType::bf16 ? "bf16" : "fp16");
            CAPTURE(s->tiles().br);
            CAPTURE(s->tiles().bc);
            CAPTURE(k.warps);
            CAPTURE(k.stages);
            CHECK(menu_kernel(e.name, pass, p.d, dtype, s->tiles(), k.warps, k.stages, hw.arch) != nullptr);
            ++checked;
            if (e.name == "flash2" && pass == Pass::bwd) ++flash2_bwd;
          }
        }
      }
    }
  }
  CHECK(checked > 0);
  CHECK(flash2_bwd == 4 * kernel_menu::kHeadDims.size() * 2);  // four sm_80+ configs, two types
}

TEST_CASE("the user's --warps and --stages replace the menu's default kernel's; a user's tile keeps the rule's") {
  const kernel_menu::Default* k = menu_default("flash2", Pass::bwd, 64);
  REQUIRE(k != nullptr);
  const DefaultKernel rule{{TileShape{128, 128}, tile_source::kFa2}, 8, 2};
  ScheduleContext ctx = context(problem(4096, 64));
  DefaultKernel def = menu_kernel_or("flash2", Pass::bwd, ctx, rule);
  CHECK(def.tile.tile == TileShape{k->br, k->bc});
  CHECK(def.warps == k->warps);
  CHECK(def.stages == k->stages);
  ctx.kernel.stages = 3;
  def = menu_kernel_or("flash2", Pass::bwd, ctx, rule);
  CHECK(def.warps == k->warps);
  CHECK(def.stages == 3);
  ctx.kernel.stages = 0;
  ctx.tiles = tiles(64, 128);
  def = menu_kernel_or("flash2", Pass::bwd, ctx, rule);
  CHECK(def.warps == 8);
  CHECK(def.stages == 2);
  ctx = context(problem(4096, 64));
  ctx.kernel.source = KernelSource::pytorch;
  def = menu_kernel_or("flash2", Pass::bwd, ctx, rule);
  CHECK(def.tile.source == tile_source::kFa2);
  CHECK(def.stages == 2);
}
