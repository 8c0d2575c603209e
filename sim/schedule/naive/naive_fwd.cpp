// naive forward — standard attention, Algorithm 0 of the FlashAttention paper.
//
//   S = Q Kᵀ       read Q, K     write S   (N × N_kv in HBM)
//   P = softmax(S) read S        write P   (the causal mask, if any, applied while reading S)
//   O = P V        read P, V     write O
// Counted as the paper counts it: each operand of each phase read once. Re-reads inside a tiled
// matrix product (an operand panel read once per output tile) are the L2's business, not this count's.
// When a row of S does not fit in SRAM the softmax needs two passes over S (max and sum, then
// normalise) and S is read twice; the report says so. A causal mask saves nothing here: S is
// computed and stored whole.
// HBM traffic per head (one-pass softmax): reads N·d + 2·N_kv·d + 2·N·N_kv, writes 2·N·N_kv + N·d.
// Tiles: the GEMMs' output tile (default 128 × 128, k-slices of 32, two stages).
// Kernels (for the GPU model): two GEMMs with one thread block per output tile, each reading its A and
// B panels slice by slice (the re-reads the paper's count leaves to the L2), and a softmax kernel with
// one block per row.
// Run: iosim --config a100.yaml --n 8192 --d 64 --schedule naive
//
// eager — the same algorithm as PyTorch's eager operators run it, softmax(Q Kᵀ · τ) V written in torch
// ops (results/h200-2026-12-04-math-profile: the kernels ncu saw): the scale by τ is a kernel of its
// own, one more read and write of S (counted in S's place; PyTorch writes a new buffer), and the
// softmax reads S once (PyTorch's softmax kernels hold a row in registers or shared memory).
// HBM traffic per head: naive's one-pass count + 2·N·N_kv. No mask and no grouped K/V heads (PyTorch's
// eager code would add a masked_fill and a repeat, kernels iosim does not count).
// Run: iosim --config h200.yaml --n 4096 --d 128 --schedule eager --predict
#include "sim/schedule/naive/eager.h"
#include "sim/schedule/flops.h"
#include "sim/schedule/gemm.h"
#include "sim/schedule/tile_choice.h"
#include "sim/schedule/tiled_schedule.h"
#include "sim/schedule/tiles.h"

namespace iosim::detail {

namespace {

class NaiveForward final : public TiledSchedule {
 public:
  NaiveForward(const ScheduleContext& ctx, bool eager)
      : TiledSchedule(eager ? "eager" : "naive", Pass::fwd, BoundKind::standard),
        p_(ctx.problem),
        eager_(eager),
        rows_(p_.n_kv, 1, p_.dtype, ctx.hardware.sm.sram_per_block) {
    if (eager_) require_eager_problem(p_);
    if (eager_) {
      rows_.passes = 1;
    } else if (!rows_.one_pass()) {
      notes_.push_back("a row of S (" + kib(bytes_of(Elements(p_.n_kv), p_.dtype)) + ") does not fit the " +
                       kib(ctx.hardware.sm.sram_per_block) +
                       " of SRAM: the softmax reads S twice (max and sum, then normalise)");
    }
    choose(ctx, {{kGemmDefault, kGemmDefault}, tile_source::kGemm}, Shrink::rows_first);
    const std::uint64_t n = p_.n, nkv = p_.n_kv, d = p_.d, bh = p_.batch_heads();
    const DType e = p_.dtype;
    const std::string k = eager_ ? "eager_" : "naive_";
    kernels_.push_back(gemm_kernel(k + "qk", n, nkv, d, {Tensor::Q, RowsAlong::m}, {Tensor::K, RowsAlong::n},
                                   Tensor::S, tiles_, bh, e));
    if (eager_) {
      kernels_.push_back(row_kernel("eager_scale", n, nkv, {Tensor::S}, Tensor::S, 1, 1, 0, bh, Bytes(0)));
    }
    kernels_.push_back(row_kernel(k + "softmax", n, nkv, {Tensor::S}, Tensor::P, rows_.passes, softmax_flops(),
                                  flops::kExpPerScore, bh, bytes_of(Elements(rows_.resident), e)));
    kernels_.push_back(gemm_kernel(k + "pv", n, d, nkv, {Tensor::P, RowsAlong::m}, {Tensor::V, RowsAlong::k},
                                   Tensor::O, tiles_, bh, e));
  }

  std::string variant() const override {
    if (eager_) return "PyTorch's eager kernels: scale, then softmax";
    return rows_.one_pass() ? "one-pass softmax" : "two-pass softmax";
  }
  void emit(const Emitter& root) const override {
    const Emitter e = root.repeated(p_.batch_heads());
    const std::uint64_t n = p_.n, nkv = p_.n_kv, d = p_.d;
    // S = Q Kᵀ
    emit_whole_gemm(e, whole(Tensor::Q, n, d), whole(Tensor::K, nkv, d), n, nkv, d, whole(Tensor::S, n, nkv));
    if (eager_) {  // S = τ·S, a kernel of its own
      e.load(whole(Tensor::S, n, nkv));
      e.vector(n * nkv);
      e.store(whole(Tensor::S, n, nkv));
      e.step();
    }
    // P = softmax(S)
    for (std::uint64_t pass = 0; pass < rows_.passes; ++pass) e.load(whole(Tensor::S, n, nkv));
    e.vector(softmax_flops() * n * nkv);
    e.special(flops::kExpPerScore * n * nkv);
    e.store(whole(Tensor::P, n, nkv));
    e.step();
    // O = P V
    emit_whole_gemm(e, whole(Tensor::P, n, nkv), whole(Tensor::V, nkv, d), n, d, nkv, whole(Tensor::O, n, d));
  }

 private:
  /// Per score: naive's softmax scales, masks where causal and normalises; eager's was scaled before.
  std::uint64_t softmax_flops() const {
    return eager_ ? flops::kNaiveSoftmaxPerScore - 1 : flops::kNaiveSoftmaxPerScore + (p_.causal ? flops::kMaskPerScore : 0);
  }

  SramPlan plan(TileShape t) const override {
    return SramPlan{{gemm_phase("S = QKᵀ", t, p_.dtype),
                     SramPhase{"P = softmax(S)", {{"S row", 1, rows_.resident, p_.dtype, Storage::shared, 1}}},
                     gemm_phase("O = PV", t, p_.dtype)}};
  }

  Problem p_;
  bool eager_;
  RowPasses rows_;
};

}  // namespace

std::unique_ptr<Schedule> make_naive_fwd(const ScheduleContext& ctx) { return std::make_unique<NaiveForward>(ctx, false); }
std::unique_ptr<Schedule> make_eager_fwd(const ScheduleContext& ctx) { return std::make_unique<NaiveForward>(ctx, true); }

}  // namespace iosim::detail
