// flash3's refusals (refusals.h). Its kernels are the kernel registry's rows of schedule flash3
// (cuda/kernels/menu.csv, arch sm90a); IOSIM_FLASH3 is defined where flash3.cmake compiles them (the build
// targets sm_90, nvcc 12.0 or newer, CUTLASS's headers found).
#include "cuda/kernels/flash3/refusals.h"

#include <string>
#include <string_view>

#include "cuda/kernels/flash3/flash3_fwd.h"
#include "cuda/kernels/launch.h"
#include "cuda/kernels/registry.h"
#include "cuda/window_paging.h"

namespace iosim::gpu::detail {

static_assert(flash3::kPageBox == kFlash3MinPage, "the page size window_paging_unsupported admits is the box's");

namespace {

#ifdef IOSIM_FLASH3
/// The schedule whose kernels these are, by its registry name (sim/schedule/flash3/register.cpp).
constexpr std::string_view kSchedule = "flash3";

/// "fwd fp16 d=128, bwd fp16 d=128" of the registry's dispatched flash3 entries, "none" when empty.
[[nodiscard]] std::string compiled_text() {
  std::string out;
  for (const KernelEntry& e : kernel_registry()) {
    if (e.schedule != kSchedule || !e.dispatched) continue;
    out += (out.empty() ? "" : ", ") + std::string(e.pass == Direction::fwd ? "fwd " : "bwd ") +
           std::string(name(e.dtype)) + " d=" + std::to_string(e.d);
  }
  return out.empty() ? "none" : out;
}
#endif

}  // namespace

std::string flash3_unsupported_in_build(const KernelSpec& s) {
  if (!described(s).hopper_tma) return "";
#ifndef IOSIM_FLASH3
  return "flash3: this build has no flash3 kernels (they need a build for sm_90, nvcc 12.0 or newer and CUTLASS's headers; cmake's "
         "configure says which was missing)";
#else
  const KernelEntry* first = nullptr;
  for (const KernelEntry& e : kernel_registry()) {
    if (e.schedule == kSchedule && e.dispatched && e.pass == s.pass && e.d == s.d && e.dtype == s.dtype) {
      first = &e;
      break;
    }
  }
  if (first == nullptr) {
    return spec_text(s) + ": no flash3 kernel of this pass, type and head dimension in this build (compiled: " +
           compiled_text() + "; -DIOSIM_CUDA_FULL_TILES=ON adds fp16/bf16 x d = 64/128)";
  }
  if (s.br == 0 && s.bc == 0) return "";
  if (s.br != first->br || s.bc != first->bc || (s.warps != 0 && s.warps != first->warps) ||
      (s.stages != 0 && s.stages != first->stages)) {
    return spec_text(s) + ": the flash3 kernel has one tile, " + std::to_string(first->br) + "x" +
           std::to_string(first->bc) + " with " + std::to_string(first->warps) + " warps (a producer and " +
           std::to_string(first->warps / 4 - 1) + " consumer warpgroups) and " + std::to_string(first->stages) +
           (s.pass == Direction::fwd ? " K/V stages" : " Q/dO stages") + "; asked for " + std::to_string(s.br) + "x" + std::to_string(s.bc) +
           (s.warps != 0 ? " with " + std::to_string(s.warps) + " warps" : "") +
           (s.stages != 0 ? ", " + std::to_string(s.stages) + " stages" : "");
  }
  return "";
#endif
}

std::string flash3_unsupported_on(const DeviceInfo& dev) {
  if (runs_sm90a(dev)) return "";
  return "flash3 needs a Hopper GPU (sm_90a: TMA and wgmma, compute capability 9.0); " + dev.name + " is " +
         std::to_string(dev.cc_major) + "." + std::to_string(dev.cc_minor);
}

}  // namespace iosim::gpu::detail
