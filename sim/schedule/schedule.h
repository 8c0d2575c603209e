// The interface every attention schedule implements, each schedule in a folder of its own below this one.
//
// A schedule is one algorithm for one pass. It chooses its tiles when it is built, declares what it
// keeps on chip, and emits its loads, stores and arithmetic in the order the algorithm performs them.
// It never counts: the Ledger (or a trace, or a cache model) observes what it emits.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/bounds/bounds.h"
#include "sim/core/emitter.h"
#include "sim/core/hardware.h"
#include "sim/core/problem.h"
#include "sim/core/sram.h"
#include "sim/schedule/kernel.h"
#include "sim/schedule/kernel_source.h"

namespace iosim {

struct CompiledKernel;

enum class Pass : std::uint8_t { fwd, bwd };

[[nodiscard]] constexpr std::string_view name(Pass p) { return p == Pass::fwd ? "fwd" : "bwd"; }

/// B_r rows of Q per tile, B_c rows of K and V per tile.
struct TileShape {
  std::uint64_t br = 0;
  std::uint64_t bc = 0;
  friend bool operator==(const TileShape&, const TileShape&) = default;
};

/// Tiles the user asked for; unset fields take the schedule's default.
struct TileRequest {
  std::optional<std::uint64_t> br;
  std::optional<std::uint64_t> bc;
};

/// How a tiled kernel is built beyond its tile: warps per block, and how many copies of the K/V tiles
/// its shared memory holds (pipeline stages: 2 lets the load of tile j + 1 overlap the math on j).
/// 0 means the schedule's default.
struct KernelRequest {
  std::uint32_t warps = 0;
  std::uint32_t stages = 0;
  KernelSource source = KernelSource::iosim;
  /// With KernelSource::triton: the compiled record of the schedule's main kernel at these tiles, warps
  /// and stages (compiled_kernel.h), which the time model prices it from; obtained by src/.
  std::shared_ptr<const CompiledKernel> compiled = nullptr;
  /// With KernelSource::triton, a pass of several compiled kernels (the backward): every kernel's record,
  /// each naming its Triton kernel (compiled_of.h picks a kernel's).
  std::vector<std::shared_ptr<const CompiledKernel>> compiled_set = {};
};

/// Everything a schedule is built from.
struct ScheduleContext {
  Problem problem;
  HardwareSpec hardware;
  TileRequest tiles;
  std::uint64_t splits = 0;  ///< K/V splits of flashdecode; 0 = FlashAttention-2's heuristic
  KernelRequest kernel;      ///< warps and stages; defaults per schedule
};

class Schedule {
 public:
  Schedule() = default;
  Schedule(const Schedule&) = delete;
  Schedule& operator=(const Schedule&) = delete;
  virtual ~Schedule() = default;

  [[nodiscard]] virtual std::string_view name() const = 0;
  [[nodiscard]] virtual Pass pass() const = 0;
  [[nodiscard]] virtual TileShape tiles() const = 0;
  /// Where tiles() come from (tile_choice.h's tile_source): the user's --br/--bc, the kernel menu, or
  /// the schedule's own rule.
  [[nodiscard]] std::string_view tile_source() const { return tile_source_; }

  /// The tiles one thread block keeps resident, per phase. Pure.
  [[nodiscard]] virtual SramPlan sram() const = 0;

  /// Which bound of Theorem 2 this schedule is checked against.
  [[nodiscard]] virtual BoundKind bound() const = 0;

  /// Choices the schedule made that a reader should know of (a default tile reduced to fit SRAM,
  /// a softmax done in two passes). Pure.
  [[nodiscard]] virtual std::vector<std::string> notes() const { return {}; }

  /// The variant of the algorithm this instance runs, where a schedule has several (naive's softmax in
  /// one pass or in two); "" otherwise. Counts of different variants differ by more than the sizes.
  [[nodiscard]] virtual std::string variant() const { return {}; }

  /// The kernels the schedule launches, in launch order. The schedule owns them.
  [[nodiscard]] virtual std::vector<const Kernel*> kernels() const = 0;

  /// Warps and pipeline stages its tiled kernel uses (0, 0 for schedules without such a choice).
  [[nodiscard]] virtual KernelRequest kernel_config() const { return {}; }

  /// Emits every transfer and computation of the pass, for all batch × heads, in algorithm order.
  /// Deterministic; must not change the schedule. The emitter's walk decides whether equal tiles are
  /// visited once with their multiplicity (Walk::runs) or one by one (Walk::each). By default: every
  /// kernel's grid in launch order. naive overrides it: the paper counts each operand of each phase
  /// once, not what its GEMMs' thread blocks ask of the L2.
  virtual void emit(const Emitter& e) const;

 protected:
  std::string_view tile_source_;  ///< set by choose_tiles (tile_choice.h)
};

/// Whether schedule `name` has pass `pass` (decoding and d-tiled schedules are forward only).
[[nodiscard]] bool has_pass(std::string_view name, Pass pass);

/// Builds schedule `name` for `pass`. Throws InputError with one line when the name is unknown, the
/// requested tile is invalid or does not fit the SRAM of one thread block.
[[nodiscard]] std::unique_ptr<Schedule> make_schedule(std::string_view name, Pass pass,
                                                      const ScheduleContext& ctx);

}  // namespace iosim
