// The common part of the tiled schedules: what each stores (name, pass, tiles, notes, warps, stages,
// kernels) and the overrides of Schedule that only return it, written once. A schedule derives from
// it, sets these in its constructor (choose() for the tiles) and implements plan() and its own emitting.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/schedule/kernel.h"
#include "sim/schedule/schedule.h"
#include "sim/schedule/tile_choice.h"

namespace iosim {

class TiledSchedule : public Schedule {
 public:
  [[nodiscard]] std::string_view name() const override { return name_; }
  [[nodiscard]] Pass pass() const override { return pass_; }
  [[nodiscard]] TileShape tiles() const override { return tiles_; }
  [[nodiscard]] SramPlan sram() const override { return plan(tiles_); }
  [[nodiscard]] BoundKind bound() const override { return bound_; }
  [[nodiscard]] std::vector<std::string> notes() const override { return notes_; }
  [[nodiscard]] KernelRequest kernel_config() const override { return {warps_, stages_}; }
  [[nodiscard]] std::vector<const Kernel*> kernels() const override {
    std::vector<const Kernel*> out;
    out.reserve(kernels_.size());
    for (const auto& k : kernels_) out.push_back(k.get());
    return out;
  }

 protected:
  /// `warps`, `stages`: what kernel_config() reports (0, 0 for schedules without such a choice); a
  /// schedule that learns them later sets warps_ and stages_ itself.
  TiledSchedule(std::string_view name, Pass pass, BoundKind bound, std::uint32_t warps = 0, std::uint32_t stages = 0)
      : name_(name), pass_(pass), bound_(bound), warps_(warps), stages_(stages) {}

  /// What one thread block keeps on chip with tiles `t` (sram() is plan(tiles())).
  [[nodiscard]] virtual SramPlan plan(TileShape t) const = 0;

  /// Sets tiles_ (and tile_source_, notes_) per choose_tiles (tile_choice.h), fitting plan(). Called from
  /// the derived constructor, so that plan() is the schedule's.
  void choose(const ScheduleContext& ctx, const DefaultTile& fallback, Shrink shrink) {
    tiles_ = choose_tiles(name_, ctx, fallback, shrink, [this](TileShape t) { return plan(t); }, notes_,
                          tile_source_);
  }

  std::string_view name_;
  Pass pass_;
  BoundKind bound_;
  std::uint32_t warps_;
  std::uint32_t stages_;
  TileShape tiles_;
  std::vector<std::string> notes_;
  std::vector<std::unique_ptr<GridKernel>> kernels_;  ///< in launch order, as kernels() lists them
};

}  // namespace iosim
