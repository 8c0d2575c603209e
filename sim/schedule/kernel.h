// One kernel launch of a schedule: a grid of thread blocks, each emitting its own loads, stores and
// arithmetic. The grid is (x, heads): x runs over a tiling (Q tiles, K/V tiles, splits …) so that
// equal blocks form runs; heads over batch × heads (or batch × kv_heads).
//
// Schedule::emit() walks every kernel's grid for the counts; the GPU model (sim/gpu) runs the same
// blocks one by one, several at a time, through the L2.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "sim/core/emitter.h"
#include "sim/core/tensor.h"
#include "sim/core/tiling.h"
#include "sim/core/units.h"

namespace iosim {

/// What a launch asks of an SM, per thread block.
struct LaunchShape {
  std::uint32_t threads = 128;
  std::uint32_t registers_per_thread = 64;  ///< estimate: accumulators spread over the threads, plus a base
  Bytes smem;                                ///< shared memory per block
  std::uint32_t stages = 1;                  ///< copies of the streamed tiles: 2+ overlaps loads with math
  /// Registers a thread holds across a step: its share of the fp32 accumulators and of operands kept in
  /// registers (0 where the schedule does not say). The time model's register model starts from it.
  double fragment_registers = 0;
  /// The tile a tiled attention kernel's blocks run (B_r × B_c), which with its warps and stages names
  /// its compiled variant in the kernel menu (kernel_registers.h); 0 for other kernels.
  std::uint64_t br = 0;
  std::uint64_t bc = 0;
  /// Rows of one TMA copy of the tiles the block streams (a TMA-loaded kernel's box; its rows are of at
  /// most 128 bytes, kTmaRowBytes); 0 for kernels whose threads load.
  std::uint64_t tma_box_rows = 0;
};

/// How a kernel's grid head indexes a tensor's heads in memory.
enum class HeadMap : std::uint8_t {
  query,         ///< grid head = query head (batch × heads)
  kv_of_query,   ///< grid head = query head; the tensor is stored per key/value head (GQA)
  kv,            ///< grid head = key/value head, and so is the tensor's
  packed_query,  ///< grid head = key/value head; the tensor is per query head, its group's heads packed
                 ///< as rows (they are adjacent in memory: [batch, kv_heads, group·n, d])
};

class Kernel {
 public:
  Kernel() = default;
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;
  virtual ~Kernel() = default;

  [[nodiscard]] virtual std::string_view name() const = 0;
  /// The grid's x dimension for one head: one block per tile of this tiling.
  [[nodiscard]] virtual Tiling grid_x() const = 0;
  /// The grid's other dimension: how many heads (batch × heads, or batch × kv_heads).
  [[nodiscard]] virtual std::uint64_t grid_heads() const = 0;
  /// False when blocks along x differ beyond the ragged last one (a causal mask), so runs of blocks
  /// must not be merged.
  [[nodiscard]] virtual bool uniform() const { return true; }
  [[nodiscard]] virtual LaunchShape launch() const = 0;
  /// How the grid head indexes tensor `t`. Default: K, V and their block table per key/value head, the
  /// rest per query head.
  [[nodiscard]] virtual HeadMap head_map(Tensor t) const {
    return (t == Tensor::K || t == Tensor::V || t == Tensor::BT) ? HeadMap::kv_of_query : HeadMap::query;
  }

  /// Emits blocks x of one grid head (alike when x.count > 1), in the order each block works.
  /// Must not depend on which head: the GPU model supplies the head when it maps tiles to addresses.
  virtual void block(const Span& x, const Emitter& e) const = 0;
};

/// A kernel described by values and a block body: what the schedules build their launches from.
class GridKernel final : public Kernel {
 public:
  using Body = std::function<void(const Span&, const Emitter&)>;
  using Map = std::function<HeadMap(Tensor)>;

  GridKernel(std::string name, Tiling grid, std::uint64_t heads, bool uniform, LaunchShape launch, Body body,
             Map map = nullptr)
      : name_(std::move(name)), grid_(grid), heads_(heads), uniform_(uniform), launch_(launch),
        body_(std::move(body)), map_(std::move(map)) {}

  std::string_view name() const override { return name_; }
  Tiling grid_x() const override { return grid_; }
  std::uint64_t grid_heads() const override { return heads_; }
  bool uniform() const override { return uniform_; }
  LaunchShape launch() const override { return launch_; }
  HeadMap head_map(Tensor t) const override { return map_ ? map_(t) : Kernel::head_map(t); }
  void block(const Span& x, const Emitter& e) const override { body_(x, e); }

 private:
  std::string name_;
  Tiling grid_;
  std::uint64_t heads_;
  bool uniform_;
  LaunchShape launch_;
  Body body_;
  Map map_;
};

/// Registers per thread of a block keeping `fp32_values` accumulator values spread over `threads`,
/// plus kBaseRegisters for addresses, indices and loop state: an estimate, not a compiler's count.
inline constexpr std::uint32_t kBaseRegisters = 40;
[[nodiscard]] inline std::uint32_t accumulator_registers(std::uint64_t fp32_values, std::uint32_t threads) {
  return static_cast<std::uint32_t>(ceil_div(fp32_values, threads)) + kBaseRegisters;
}

}  // namespace iosim
