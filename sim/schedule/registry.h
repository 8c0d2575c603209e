// The registry: one entry per schedule, the only place that knows what a schedule is made of — its
// constructor per pass, its functional executor (sim/exec), the kernel family of each of its kernels
// and the families it describes (kernel_family.h), the CUDA kernels that run it (cuda/backend.h) and
// what it can do. Every consumer asks the entry; none compares schedule names. A schedule is one
// folder, sim/schedule/<name>/: its passes, its families.cpp (its kernels' families, where it has
// kernels of its own) and its register.cpp, whose register_<name>() returns its entry; catalog.cpp
// lists them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/schedule/cuda_kernels.h"
#include "sim/schedule/kernel_family.h"
#include "sim/schedule/schedule.h"

namespace iosim {

namespace exec {
struct Executor;
}

/// The kernel family (kernel_family.h) of one of a schedule's kernels, by the kernel's name.
struct KernelFamilyOf {
  std::string_view kernel;
  std::string_view family;
};

/// What a schedule can do beyond counting, for the commands that offer it.
struct ScheduleCaps {
  bool tile_search = false;  ///< `iosim tiles` searches its B_r × B_c × warps
  bool stages = false;       ///< its tiled kernel keeps 1 to 4 copies of the streamed K/V tiles
  bool tiles_default = false;  ///< the schedule `iosim tiles` searches when none is named
  bool traced_by_default = false;  ///< `iosim trace` shows it when no --schedule is given
  bool baseline = false;     ///< the table's "naive ÷" column divides its HBM traffic by this one's
  bool streaming = false;    ///< its kernels stream whole rows (GEMMs): the work estimate's streaming rate
  /// Its kernels are warp-specialised warpgroups (flash3): `iosim tiles` searches whole warpgroups
  /// and its own sizes and stages (tile_search_defaults), and the schedule checks the warpgroups' rows.
  bool warpgroups = false;
  /// It runs on Hopper configs only (flash3: TMA and wgmma, sm_90): `iosim tiles` builds it once before
  /// searching, so a refusal is one error; the tests' loops over every schedule on an A100 skip it.
  bool hopper_only = false;
  /// It refuses causal masks and grouped K/V heads (eager: PyTorch's code for them runs kernels iosim
  /// does not count); the tests' loops over every schedule give it one K/V head a query head, unmasked.
  bool dense_mha_only = false;
  /// Its forward reads K and V through a block table when the problem is paged (flash2's prefill,
  /// flashdecode's decoding); the others refuse --page-size.
  bool paged_fwd = false;
};

/// Its part in the `iosim bounds` sweeps (sim/slopes/sweep.h).
struct BoundsRole {
  /// How its tile follows the SRAM size M in the M sweep.
  enum class AtM : std::uint8_t {
    none,        ///< not swept over M
    own_policy,  ///< its own default tile at each M (policy says which)
    quarter_d,   ///< forward B_r = B_c = ⌊M/4d⌋; backward B_r = 16 and the largest B_c that fits
  };
  bool n_sweep = false;  ///< its count fitted against n (slope 2)
  AtM at_m = AtM::none;
  const char* policy = nullptr;  ///< with own_policy: the tile rule the report states
  bool small_sram = false;  ///< the small-SRAM schedule of the crossover (SRAM below d²)
};

/// The measurement grid of `iosim validate` (src/cli/cmd_validate.cpp).
struct ValidateRole {
  bool block_per_head = false;  ///< one thread block per head: the grid gives it one full wave of heads
  bool ragged_and_bf16 = false;  ///< the grid adds a ragged n = 3000 and bf16 at n = 4096
  bool decode = false;  ///< decoding (forward only): the decode grid instead of the masked and dense ones
  bool library_tiles = false;  ///< its kernels pick their own tiles (cuBLAS): one run per problem
};

using ScheduleFactory = std::unique_ptr<Schedule> (*)(const ScheduleContext&);

/// The kernel families a schedule's folder describes (its families.cpp).
using FamilyList = std::vector<KernelFamily> (*)();

struct ScheduleEntry {
  std::string_view name;
  std::string_view summary;
  bool by_default = false;  ///< run when no --schedule is given
  ScheduleFactory fwd = nullptr;  ///< nullptr where it has no such pass
  ScheduleFactory bwd = nullptr;
  const exec::Executor* executor = nullptr;  ///< its functional execution (--execute); nullptr: none
  /// The CUDA kernels that run it and the device tensors they write (measure, validate); none: no kernels.
  std::optional<CudaKernels> cuda = std::nullopt;
  std::span<const KernelFamilyOf> kernels = {};  ///< its kernels' families; a kernel not listed is "library"
  ScheduleCaps caps = {};
  BoundsRole bounds = {};
  ValidateRole validate = {};
  /// PyTorch's kernels that run it (SDPA's flash backend), by the model's kernel names, and their
  /// families; empty: PyTorch has none (`--kernels pytorch` refuses the schedule).
  std::span<const KernelFamilyOf> pytorch_kernels = {};
  /// The families of the kernels the project's Triton code has for it (python/iosim/triton; --kernels
  /// triton), priced from their compiled records; empty where it has none.
  std::span<const KernelFamilyOf> triton_kernels = {};
  /// The families its folder describes (families.cpp), which kernel_families() collects in the
  /// catalog's order; nullptr where it describes none (its kernels are the generic families, or
  /// another entry of its folder returns them).
  FamilyList families = nullptr;

  [[nodiscard]] ScheduleFactory factory(Pass p) const { return p == Pass::fwd ? fwd : bwd; }
};

using ScheduleInfo = ScheduleEntry;

/// The schedules iosim knows, in the order reports list them.
[[nodiscard]] std::span<const ScheduleEntry> schedule_catalog();

/// The entry named `name`, or nullptr.
[[nodiscard]] const ScheduleEntry* find_schedule(std::string_view name);

/// The entry named `name`; InputError "unknown schedule 'x' (known: …)" when there is none.
[[nodiscard]] const ScheduleEntry& schedule_entry(std::string_view name);

/// The first entry for which `pred` holds, or nullptr.
template <class Pred>
[[nodiscard]] const ScheduleEntry* first_schedule(Pred pred) {
  for (const ScheduleEntry& e : schedule_catalog()) {
    if (pred(e)) return &e;
  }
  return nullptr;
}

/// The names of the entries for which `pred` holds, joined: "a, b and c" (sep ", ", last " and "),
/// or "a,b,c" (sep ",", last ",").
template <class Pred>
[[nodiscard]] std::string schedule_names(Pred pred, std::string_view sep = ", ", std::string_view last = " and ") {
  std::vector<std::string_view> names;
  for (const ScheduleEntry& e : schedule_catalog()) {
    if (pred(e)) names.push_back(e.name);
  }
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? last : sep;
    out += names[i];
  }
  return out;
}

}  // namespace iosim
