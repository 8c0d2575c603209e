// A kernel's registers a thread, from the compiled kernel where there is one: the registers and spills
// ptxas reported for the kernel menu's variant (cuda/kernels/compiled-sm*.csv, compiled into the model as
// kernel_menu::kCompiled), else the kernel family's register model, fitted to such reports
// (kernel_family.h). Occupancy, the time model and the tile search's refusals all take it from here.
#pragma once

#include <cstdint>
#include <string_view>

#include "iosim_generated/kernel_menu.h"
#include "sim/schedule/kernel_family.h"
#include "sim/schedule/schedule.h"

namespace iosim {

/// Where a kernel's register count comes from.
enum class RegisterSource : std::uint8_t {
  none,      ///< neither: the schedule's own estimate (LaunchShape::registers_per_thread) stands
  compiled,  ///< the compiled kernel's (ptxas, the menu's table for this GPU's architecture)
  fitted,    ///< the family's register model
};

[[nodiscard]] constexpr std::string_view name(RegisterSource s) {
  switch (s) {
    case RegisterSource::compiled: return "ptxas";
    case RegisterSource::fitted: return "fit";
    case RegisterSource::none: break;
  }
  return "schedule";
}

struct KernelRegisters {
  std::uint32_t registers = 0;           ///< a thread; 0 where the source is none
  std::uint32_t spill_stores_bytes = 0;  ///< a thread, where compiled (ptxas)
  RegisterSource source = RegisterSource::none;
};

/// The registers of iosim's kernel `kernel` (its name) launched as `launch`, in a kernel of `family`,
/// for ctx's problem, kernel source and GPU. The menu's compiled variant where ctx asks for iosim's kernels
/// and the table has the kernel at the launch's tile, warps and stages, ctx's head dimension and
/// type, for ctx's architecture; else the family's model where the launch says which fragments a
/// thread holds; else none.
[[nodiscard]] KernelRegisters kernel_registers(std::string_view kernel, const LaunchShape& launch,
                                               const KernelFamily& family, const ScheduleContext& ctx);

/// The menu's compiled variant of `kernel`, or nullptr where the table has none (for tests and reports).
[[nodiscard]] const kernel_menu::Compiled* compiled_variant(std::string_view kernel, std::uint64_t d, DType dtype,
                                                            std::uint64_t br, std::uint64_t bc, std::uint32_t warps,
                                                            std::uint32_t stages, std::string_view arch);

}  // namespace iosim
