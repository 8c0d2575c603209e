// naive — standard attention, Algorithm 0 of the FlashAttention paper.
//
//   S = Q Kᵀ      read Q, K     write S   (N × N_kv in HBM)
//   P = softmax(S) read S        write P
//   O = P V        read P, V     write O
// Counted as the paper counts it: each operand of each phase read once. Re-reads inside a tiled
// matrix product (an operand panel read once per output tile) are the L2's business, not this count's.
// When a row of S does not fit in SRAM the softmax needs two passes over S (max and sum, then
// normalise) and S is read twice; the report says so.
// HBM traffic per head (one-pass softmax): reads N·d + 2·N_kv·d + 2·N·N_kv, writes 2·N·N_kv + N·d.
// Tiles: the GEMMs' output tile (default 128 × 128, k-slices of 32, two stages).
// Run: iosim --config a100.yaml --n 8192 --d 64 --schedule naive
#include <algorithm>
#include <bit>

#include "sim/core/error.h"
#include "sim/schedule/factories.h"
#include "sim/schedule/flops.h"
#include "sim/schedule/tile_choice.h"
#include "sim/schedule/tiles.h"

namespace iosim::detail {

namespace {

constexpr std::uint64_t kGemmDefault = 128;  // cuBLAS-class output tile for fp16 GEMMs
constexpr std::uint64_t kGemmSliceK = 32;    // k-slice staged in shared memory
constexpr std::uint64_t kGemmStages = 2;     // double buffering

class NaiveForward final : public Schedule {
 public:
  explicit NaiveForward(const ScheduleContext& ctx) : p_(ctx.problem), limit_(ctx.hardware.sm.sram_per_block) {
    const Bytes row = bytes_of(Elements(p_.n_kv), p_.dtype);
    one_pass_ = row <= limit_;
    if (!one_pass_) {
      chunk_ = std::bit_floor(limit_.value / size_bytes(p_.dtype));
      notes_.push_back("a row of S (" + kib(row) + ") does not fit the " + kib(limit_) +
                       " of SRAM: the softmax reads S twice (max and sum, then normalise)");
    }
    tiles_ = choose_tiles("naive", ctx, {kGemmDefault, kGemmDefault}, Shrink::rows_first, [this](TileShape t) { return plan(t); },
                          notes_);
  }

  std::string_view name() const override { return "naive"; }
  Pass pass() const override { return Pass::fwd; }
  TileShape tiles() const override { return tiles_; }
  SramPlan sram() const override { return plan(tiles_); }
  BoundKind bound() const override { return BoundKind::standard; }
  std::vector<std::string> notes() const override { return notes_; }
  std::string variant() const override { return one_pass_ ? "one-pass softmax" : "two-pass softmax"; }

  void emit(const Emitter& root) const override {
    const Emitter e = root.repeated(p_.batch_heads());
    const std::uint64_t n = p_.n, nkv = p_.n_kv, d = p_.d;
    // S = Q Kᵀ
    e.load(whole(Tensor::Q, n, d));
    e.load(whole(Tensor::K, nkv, d));
    e.matmul(n, nkv, d);
    e.store(whole(Tensor::S, n, nkv));
    e.step();
    // P = softmax(S)
    e.load(whole(Tensor::S, n, nkv));
    if (!one_pass_) e.load(whole(Tensor::S, n, nkv));
    e.vector(flops::kNaiveSoftmaxPerScore * n * nkv);
    e.store(whole(Tensor::P, n, nkv));
    e.step();
    // O = P V
    e.load(whole(Tensor::P, n, nkv));
    e.load(whole(Tensor::V, nkv, d));
    e.matmul(n, d, nkv);
    e.store(whole(Tensor::O, n, d));
    e.step();
  }

 private:
  SramPlan plan(TileShape t) const {
    const DType e = p_.dtype;
    const auto gemm = [&](std::string name) {
      return SramPhase{std::move(name),
                       {{"A slice", t.br, kGemmSliceK, e, Storage::shared, kGemmStages},
                        {"B slice", t.bc, kGemmSliceK, e, Storage::shared, kGemmStages},
                        {"C tile", t.br, t.bc, DType::fp32, Storage::registers, 1}}};
    };
    const std::uint64_t row = one_pass_ ? p_.n_kv : chunk_;
    return SramPlan{{gemm("S = QKᵀ"), SramPhase{"P = softmax(S)", {{"S row", 1, row, e, Storage::shared, 1}}},
                     gemm("O = PV")}};
  }

  Problem p_;
  Bytes limit_;
  bool one_pass_ = true;
  std::uint64_t chunk_ = 0;
  TileShape tiles_;
  std::vector<std::string> notes_;
};

}  // namespace

std::unique_ptr<Schedule> make_naive(Pass pass, const ScheduleContext& ctx) {
  if (pass != Pass::fwd) throw InputError("naive: the backward pass is not modelled yet");
  return std::make_unique<NaiveForward>(ctx);
}

}  // namespace iosim::detail
