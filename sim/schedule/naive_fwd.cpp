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
#include "sim/schedule/factories.h"
#include "sim/schedule/flops.h"
#include "sim/schedule/gemm.h"
#include "sim/schedule/tile_choice.h"
#include "sim/schedule/tiles.h"

namespace iosim::detail {

namespace {

class NaiveForward final : public Schedule {
 public:
  explicit NaiveForward(const ScheduleContext& ctx)
      : p_(ctx.problem), rows_(p_.n_kv, 1, p_.dtype, ctx.hardware.sm.sram_per_block) {
    if (!rows_.one_pass()) {
      notes_.push_back("a row of S (" + kib(bytes_of(Elements(p_.n_kv), p_.dtype)) + ") does not fit the " +
                       kib(ctx.hardware.sm.sram_per_block) +
                       " of SRAM: the softmax reads S twice (max and sum, then normalise)");
    }
    tiles_ = choose_tiles("naive", ctx, {{kGemmDefault, kGemmDefault}, tile_source::kGemm}, Shrink::rows_first,
                          [this](TileShape t) { return plan(t); }, notes_, tile_source_);
    const std::uint64_t n = p_.n, nkv = p_.n_kv, d = p_.d, bh = p_.batch_heads();
    const DType e = p_.dtype;
    kernels_.push_back(gemm_kernel("naive_qk", n, nkv, d, {Tensor::Q, RowsAlong::m}, {Tensor::K, RowsAlong::n},
                                   Tensor::S, tiles_, bh, e));
    kernels_.push_back(row_kernel("naive_softmax", n, nkv, {Tensor::S}, Tensor::P, rows_.passes,
                                  flops::kNaiveSoftmaxPerScore + (p_.causal ? flops::kMaskPerScore : 0),
                                  flops::kExpPerScore, bh,
                                  bytes_of(Elements(rows_.resident), e)));
    kernels_.push_back(gemm_kernel("naive_pv", n, d, nkv, {Tensor::P, RowsAlong::m}, {Tensor::V, RowsAlong::k},
                                   Tensor::O, tiles_, bh, e));
  }

  std::string_view name() const override { return "naive"; }
  Pass pass() const override { return Pass::fwd; }
  TileShape tiles() const override { return tiles_; }
  SramPlan sram() const override { return plan(tiles_); }
  BoundKind bound() const override { return BoundKind::standard; }
  std::vector<std::string> notes() const override { return notes_; }
  std::string variant() const override { return rows_.one_pass() ? "one-pass softmax" : "two-pass softmax"; }
  std::vector<const Kernel*> kernels() const override {
    return {kernels_[0].get(), kernels_[1].get(), kernels_[2].get()};
  }

  void emit(const Emitter& root) const override {
    const Emitter e = root.repeated(p_.batch_heads());
    const std::uint64_t n = p_.n, nkv = p_.n_kv, d = p_.d;
    // S = Q Kᵀ
    emit_whole_gemm(e, whole(Tensor::Q, n, d), whole(Tensor::K, nkv, d), n, nkv, d, whole(Tensor::S, n, nkv));
    // P = softmax(S)
    for (std::uint64_t pass = 0; pass < rows_.passes; ++pass) e.load(whole(Tensor::S, n, nkv));
    e.vector((flops::kNaiveSoftmaxPerScore + (p_.causal ? flops::kMaskPerScore : 0)) * n * nkv);
    e.special(flops::kExpPerScore * n * nkv);
    e.store(whole(Tensor::P, n, nkv));
    e.step();
    // O = P V
    emit_whole_gemm(e, whole(Tensor::P, n, nkv), whole(Tensor::V, nkv, d), n, d, nkv, whole(Tensor::O, n, d));
  }

 private:
  SramPlan plan(TileShape t) const {
    return SramPlan{{gemm_phase("S = QKᵀ", t, p_.dtype),
                     SramPhase{"P = softmax(S)", {{"S row", 1, rows_.resident, p_.dtype, Storage::shared, 1}}},
                     gemm_phase("O = PV", t, p_.dtype)}};
  }

  Problem p_;
  RowPasses rows_;
  TileShape tiles_;
  std::vector<std::string> notes_;
  std::vector<std::unique_ptr<GridKernel>> kernels_;
};

}  // namespace

std::unique_ptr<Schedule> make_naive_fwd(const ScheduleContext& ctx) { return std::make_unique<NaiveForward>(ctx); }

}  // namespace iosim::detail
