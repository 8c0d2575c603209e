// flashdecode — split-KV decoding (Flash-Decoding; FlashAttention-2's splitkv kernels), forward, in
// two variants: `flashdecode` packs a group's query heads into the rows of one block (below), and
// `flashdecode-heads` keeps one block row set per query head (FlashAttention-2 without its
// seqlen_q/group swap): the same kernels, rows = n, grid over query heads, K/V read once per query head.
//
// Decoding has few queries (1–64) and a long K/V cache: one block per Q tile and head leaves most SMs
// idle. Splitting the K/V sequence across s blocks restores parallelism at the price of a combine pass:
//   1. per key/value head, Q tile and split k:   load Q tile (the group's query heads packed as rows)
//        for each K/V tile j of split k:          load K_j, V_j; S = Q Kᵀ; online softmax
//        store Opart_k (fp32), Lpart_k (fp32)      (with s = 1: store O and L directly)
//   2. combine, per key/value head:              load Lpart_1..s, Opart_1..s; store O, L
// The query heads that share a key/value head are packed into the rows of one block (as
// FlashAttention-2 does for decoding with grouped-query attention), so each K/V tile is read once per
// split, not once per query head.
// HBM traffic per key/value head: K, V: N_kv·d each; Q: s·g·N·d; with s > 1, partials written and read:
// s·g·N·(d + 1) fp32 each way; O: g·N·d; L: g·N (g = heads / kv_heads). flashdecode-heads reads K and V
// g times (once per query head), the rest is the same.
// Tiles: B_r = 64, B_c = 256 (d ≤ 64), 128 (d ≤ 128), else 64; K_j, V_j in a ring of --stages copies
// (default 1, as FlashAttention-2's split kernel); s from FlashAttention-2's heuristic
// (defaults.h) unless --splits is given. Whether splitting pays shows in time, not bytes.
// Run: iosim --config h200.yaml --n 1 --n-kv 32768 --d 128 --heads 32 --kv-heads 8 --schedule flashdecode
#include <algorithm>

#include "sim/core/error.h"
#include "sim/core/mask.h"
#include "sim/schedule/defaults.h"
#include "sim/schedule/flash2_step.h"
#include "sim/schedule/kernel_menu.h"
#include "sim/schedule/flashdecode/flashdecode.h"
#include "sim/schedule/flops.h"
#include "sim/schedule/tile_choice.h"
#include "sim/schedule/tiled_schedule.h"
#include "sim/schedule/tiles.h"

namespace iosim::detail {

namespace {

class FlashDecode final : public TiledSchedule {
 public:
  FlashDecode(const ScheduleContext& ctx, bool packed)
      : TiledSchedule(packed ? "flashdecode" : "flashdecode-heads", Pass::fwd, BoundKind::io_aware,
                      ctx.kernel.warps != 0 ? ctx.kernel.warps : 4u, ctx.kernel.stages != 0 ? ctx.kernel.stages : 1u),
        p_(ctx.problem), packed_heads_(packed), packed_(packed ? p_.group() * p_.n : p_.n) {
    choose(ctx, menu_tile_or(name(), Pass::fwd, ctx, {fa2_splitkv_tiles(p_), tile_source::kFa2}), Shrink::cols_first);
    check_page_tile(p_, tiles_.bc, name());
    const std::uint64_t kv_tiles = ceil_div(p_.n_kv, tiles_.bc);
    const std::uint64_t heads = p_.batch * (packed ? p_.kv_head_count() : p_.heads);
    const std::uint64_t blocks = heads * ceil_div(packed_, tiles_.br);
    splits_ = ctx.splits != 0 ? std::min(ctx.splits, kv_tiles)
                              : flashdecode_splits(p_, tiles_, ctx.hardware.sm.count, packed);
    if (ctx.splits > kv_tiles) {
      notes_.push_back(std::to_string(ctx.splits) + " splits asked, but N_kv has only " + std::to_string(kv_tiles) +
                       " tiles of " + std::to_string(tiles_.bc) + ": " + std::to_string(splits_) + " splits");
    }
    if (ctx.splits == 0) {
      notes_.push_back(std::to_string(splits_) + " K/V splits (FlashAttention-2's heuristic for " +
                       std::to_string(blocks) + " blocks on " + std::to_string(ctx.hardware.sm.count) + " SMs)");
    }
    const std::uint64_t m_tiles = ceil_div(packed_, tiles_.br);
    const std::uint32_t threads = 32 * warps_;
    const LaunchShape shape{threads, accumulator_registers(tiles_.br * tiles_.bc + tiles_.br * p_.d, threads),
                            plan(tiles_).peak(), stages_};
    // Packed: grid head = key/value head. Per query head: the default map (K/V of the query's group).
    const GridKernel::Map map =
        packed ? GridKernel::Map([](Tensor t) {
          return (t == Tensor::K || t == Tensor::V || t == Tensor::BT) ? HeadMap::kv : HeadMap::packed_query;
        })
               : GridKernel::Map();
    // Grid (Q tiles, splits, heads) as FlashAttention-2 launches it: x runs over Q tiles fastest.
    kernels_.push_back(std::make_unique<GridKernel>(
        "flashdecode_split", Tiling{m_tiles * splits_, 1}, heads, false, shape,
        [this, m_tiles](const Span& x, const Emitter& e) { split_block(x.first % m_tiles, x.first / m_tiles, e); },
        map));
    if (splits_ > 1) {
      const LaunchShape small{128, accumulator_registers(tiles_.br * p_.d, 128), Bytes(0)};
      kernels_.push_back(std::make_unique<GridKernel>("flashdecode_combine", Tiling{packed_, tiles_.br}, heads, true,
                                                      small,
                                                      [this](const Span& i, const Emitter& e) { combine(i, e); }, map));
    }
  }

  std::string variant() const override { return splits_ > 1 ? "split" : "unsplit"; }
  [[nodiscard]] std::uint64_t splits() const { return splits_; }

 private:
  /// One block: Q tile `m` (packed rows of the group) against split `s` of the K/V tiles.
  void split_block(std::uint64_t m, std::uint64_t s, const Emitter& e) const {
    const std::uint64_t d = p_.d;
    const Tiling rows{packed_, tiles_.br};
    const Tiling cols{p_.n_kv, tiles_.bc};
    const Tiling split_tiles{cols.count(), ceil_div(cols.count(), splits_)};  // K/V tiles per split
    const Span i{m, 1, rows.size(m), rows.begin(m)};
    // Packed, rows hold query positions 0..n−1 of every head of the group: a block sees the keys of them
    // all. One query head's rows see the keys of their own positions (the causal bound FlashAttention-2's
    // split kernel takes per block of rows).
    const KvRange kv = packed_heads_ ? Mask(p_).kv_for_rows(0, p_.n, cols)
                                     : Mask(p_).kv_for_rows(i.begin, i.begin + i.size, cols);
    const std::uint64_t lo = split_tiles.begin(s), hi = lo + split_tiles.size(s);
    e.load(rows_of(Tensor::Q, i, d));
    // This split's share [lo, hi) of each of the mask's three runs of tiles.
    const auto run = [&](std::uint64_t a, std::uint64_t b, bool masked) {
      e.loop(cols, std::max(lo, a), std::min(hi, b), [&](const Span& j, const Emitter& ej) { step(i, j, masked, ej); });
    };
    run(kv.start, kv.full_lo, true);
    run(kv.full_lo, kv.full_hi, false);
    run(kv.full_hi, kv.end, true);
    e.vector(flops::kFlash2PerOutputFinal * i.size * d + flops::kFlash2PerRowFinal * i.size);
    e.special(flops::kFlash2LogPerRowFinal * i.size);
    if (splits_ > 1) {
      e.store(TileRef{Tensor::Opart, i.begin, i.size, 0, d, s});
      e.store(TileRef{Tensor::Lpart, i.begin, i.size, 0, 1, s});
    } else {
      e.store(rows_of(Tensor::O, i, d));
      e.store(stat_of(Tensor::L, i));
    }
  }

  /// The combine pass for Q tile i: every split's partial output and logsumexp of its rows.
  void combine(const Span& i, const Emitter& e) const {
    const std::uint64_t d = p_.d;
    for (std::uint64_t s = 0; s < splits_; ++s) {
      e.load(TileRef{Tensor::Lpart, i.begin, i.size, 0, 1, s});
      e.load(TileRef{Tensor::Opart, i.begin, i.size, 0, d, s});
    }
    e.vector(splits_ * (flops::kCombinePerSplitRow * i.size + flops::kCombinePerSplitOutput * i.size * d));
    e.special(splits_ * flops::kCombineExpPerSplitRow * i.size);
    e.store(rows_of(Tensor::O, i, d));
    e.store(stat_of(Tensor::L, i));
    e.step();
  }

  void step(const Span& i, const Span& j, bool masked, const Emitter& e) const {
    load_block_table(e, p_, j);
    flash2_forward_step(e, i.size, j, masked, p_.d, p_.dtype, warps_);
  }

  SramPlan plan(TileShape t) const override {
    const std::uint64_t r = std::min(t.br, packed_);
    const std::uint64_t c = std::min(t.bc, p_.n_kv);
    const DType e = p_.dtype;
    return SramPlan{{SramPhase{"K/V loop",
                               {{"Q tile", r, p_.d, e, Storage::shared, 1},
                                {"K_j", c, p_.d, e, Storage::shared, stages_},
                                {"V_j", c, p_.d, e, Storage::shared, stages_},
                                {"S", r, c, DType::fp32, Storage::registers, 1},
                                {"O", r, p_.d, DType::fp32, Storage::registers, 1}}}}};
  }

  Problem p_;
  bool packed_heads_;     ///< the group's query heads packed as rows of one grid head
  std::uint64_t packed_;  ///< rows of one grid head: group × n packed, else n
  std::uint64_t splits_ = 1;
};

}  // namespace

std::unique_ptr<Schedule> make_flashdecode_fwd(const ScheduleContext& ctx) {
  return std::make_unique<FlashDecode>(ctx, true);
}

std::unique_ptr<Schedule> make_flashdecode_heads_fwd(const ScheduleContext& ctx) {
  return std::make_unique<FlashDecode>(ctx, false);
}

}  // namespace iosim::detail
