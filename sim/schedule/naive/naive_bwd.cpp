// naive backward — the standard backward pass (Algorithm 3 of the FlashAttention paper), with the
// n × n_kv matrices in HBM as a standard implementation keeps them. P comes saved from the forward.
//
//   dV = Pᵀ dO                          read P, dO     write dV
//   dP = dO Vᵀ                          read dO, V     write dP
//   dS = P ∘ (dP − rowsum(P ∘ dP))      read P, dP     write dS   (rowsum(P ∘ dP) = rowsum(dO ∘ O) = D)
//   dQ = τ·dS K                         read dS, K     write dQ
//   dK = τ·dSᵀ Q                        read dS, Q     write dK
// τ = 1/√d. The dS kernel reads a row of P and of dP together: once when both rows fit in SRAM,
// twice otherwise (the row sums first).
// HBM traffic per head (one pass): reads 5·N·N_kv + 3·N·d + 2·N_kv·d, writes 2·N·N_kv + N·d + 2·N_kv·d.
// Grouped K/V heads (group g > 1): cuda/kernels/naive.cu runs each product once per K/V head over the
// group's g·N query rows, so dV = Pᵀ dO and dK = τ·dSᵀ Q sum the group inside the product (k = g·N) and
// are written once per K/V head: counted so here (g·N rows of P, dO, dS, Q packed per K/V head). dP and
// dQ are counted per query head, as the forward's products are: V and K read once per query head.
// Run: iosim --config a100.yaml --n 1024 --d 64 --pass bwd --schedule naive
//
// eager — as PyTorch's autograd runs the eager operators' backward (results/h200-2026-12-04-math-profile):
//   dV = Pᵀ dO, dP = dO Vᵀ                 as above
//   T = dP ∘ P                             read dP, P     write T    (counted in dP's place)
//   dS' = softmax_backward(T, P)           read T, P      write dS
//   dS = τ·dS'                             read dS        write dS   (counted in place)
//   dQ = dS K, dKᵀ = Qᵀ dS                 as above, τ applied already
//   dK = a contiguous copy of dKᵀ          read dK        write dK
// HBM traffic per head: naive's one-pass count + 5·N·N_kv + 2·N_kv·d.
// Run: iosim --config h200.yaml --n 4096 --d 128 --pass bwd --schedule eager --predict
#include "sim/schedule/naive/eager.h"
#include "sim/schedule/flops.h"
#include "sim/schedule/gemm.h"
#include "sim/schedule/tile_choice.h"
#include "sim/schedule/tiled_schedule.h"
#include "sim/schedule/tiles.h"

namespace iosim::detail {

namespace {

class NaiveBackward final : public TiledSchedule {
 public:
  NaiveBackward(const ScheduleContext& ctx, bool eager)
      : TiledSchedule(eager ? "eager" : "naive", Pass::bwd, BoundKind::standard),
        p_(ctx.problem),
        eager_(eager),
        rows_(p_.n_kv, 2, p_.dtype, ctx.hardware.sm.sram_per_block) {
    if (eager_) require_eager_problem(p_);
    if (eager_) {
      rows_.passes = 1;
    } else if (!rows_.one_pass()) {
      notes_.push_back("a row of P and of dP (" + kib(bytes_of(Elements(2 * p_.n_kv), p_.dtype)) +
                       ") do not fit the " + kib(ctx.hardware.sm.sram_per_block) +
                       " of SRAM: the dS kernel reads them twice");
    }
    choose(ctx, {{kGemmDefault, kGemmDefault}, tile_source::kGemm}, Shrink::rows_first);
    const std::uint64_t n = p_.n, nkv = p_.n_kv, d = p_.d, bh = p_.batch_heads(), gn = p_.group() * n;
    const std::uint64_t bkv = p_.batch * p_.kv_head_count();
    const DType e = p_.dtype;
    // dV and dK: one product per K/V head, the group's query rows packed (adjacent in memory).
    const GridKernel::Map per_kv_head =
        p_.group() == 1 ? GridKernel::Map() : GridKernel::Map([](Tensor t) {
          return (t == Tensor::dV || t == Tensor::dK) ? HeadMap::kv : HeadMap::packed_query;
        });
    const std::string k = eager_ ? "eager_" : "naive_";
    kernels_.push_back(gemm_kernel(k + "dv", nkv, d, gn, {Tensor::P, RowsAlong::k}, {Tensor::dO, RowsAlong::k},
                                   Tensor::dV, tiles_, bkv, e, per_kv_head));
    kernels_.push_back(gemm_kernel(k + "dp", n, nkv, d, {Tensor::dO, RowsAlong::m}, {Tensor::V, RowsAlong::n},
                                   Tensor::dP, tiles_, bh, e));
    if (eager_) {
      kernels_.push_back(row_kernel("eager_ds_mul", n, nkv, {Tensor::dP, Tensor::P}, Tensor::dP, 1, 1, 0, bh, Bytes(0)));
    }
    kernels_.push_back(row_kernel(k + "ds", n, nkv, {Tensor::P, Tensor::dP}, Tensor::dS, rows_.passes, ds_flops(), 0,
                                  bh, bytes_of(Elements(2 * rows_.resident), e)));
    if (eager_) {
      kernels_.push_back(row_kernel("eager_ds_scale", n, nkv, {Tensor::dS}, Tensor::dS, 1, 1, 0, bh, Bytes(0)));
    }
    kernels_.push_back(gemm_kernel(k + "dq", n, d, nkv, {Tensor::dS, RowsAlong::m}, {Tensor::K, RowsAlong::k},
                                   Tensor::dQ, tiles_, bh, e));
    kernels_.push_back(gemm_kernel(k + "dk", nkv, d, gn, {Tensor::dS, RowsAlong::k}, {Tensor::Q, RowsAlong::k},
                                   Tensor::dK, tiles_, bkv, e, per_kv_head));
    if (eager_) {
      kernels_.push_back(row_kernel("eager_dk_copy", nkv, d, {Tensor::dK}, Tensor::dK, 1, 0, 0, bkv, Bytes(0)));
    }
  }

  std::string variant() const override {
    if (eager_) return "PyTorch's eager kernels: dP ∘ P, softmax backward, scale, dK copy";
    return rows_.one_pass() ? "one-pass dS" : "two-pass dS";
  }
  void emit(const Emitter& root) const override {
    const Emitter e = root.repeated(p_.batch_heads());
    const Emitter kv = root.repeated(p_.batch * p_.kv_head_count());  // dV, dK: per K/V head
    const std::uint64_t n = p_.n, nkv = p_.n_kv, d = p_.d, gn = p_.group() * n;
    // dV = Pᵀ dO
    emit_whole_gemm(kv, whole(Tensor::P, gn, nkv), whole(Tensor::dO, gn, d), nkv, d, gn, whole(Tensor::dV, nkv, d));
    // dP = dO Vᵀ
    emit_whole_gemm(e, whole(Tensor::dO, n, d), whole(Tensor::V, nkv, d), n, nkv, d, whole(Tensor::dP, n, nkv));
    if (eager_) {  // T = dP ∘ P, in dP's place
      e.load(whole(Tensor::dP, n, nkv));
      e.load(whole(Tensor::P, n, nkv));
      e.vector(n * nkv);
      e.store(whole(Tensor::dP, n, nkv));
      e.step();
    }
    // dS = P ∘ (dP − rowsum(P ∘ dP))   (eager: softmax_backward(T, P))
    for (std::uint64_t pass = 0; pass < rows_.passes; ++pass) {
      e.load(whole(Tensor::P, n, nkv));
      e.load(whole(Tensor::dP, n, nkv));
    }
    e.vector(ds_flops() * n * nkv);
    e.store(whole(Tensor::dS, n, nkv));
    e.step();
    if (eager_) {  // dS = τ·dS'
      e.load(whole(Tensor::dS, n, nkv));
      e.vector(n * nkv);
      e.store(whole(Tensor::dS, n, nkv));
      e.step();
    }
    // dQ = τ·dS K   (eager: τ applied already)
    const std::uint64_t tau = eager_ ? 0 : 1;
    emit_whole_gemm(e, whole(Tensor::dS, n, nkv), whole(Tensor::K, nkv, d), n, d, nkv, whole(Tensor::dQ, n, d),
                    tau * n * d);
    // dK = τ·dSᵀ Q
    emit_whole_gemm(kv, whole(Tensor::dS, gn, nkv), whole(Tensor::Q, gn, d), nkv, d, gn, whole(Tensor::dK, nkv, d),
                    tau * nkv * d);
    if (eager_) {  // dK, a contiguous copy of the product's dKᵀ
      kv.load(whole(Tensor::dK, nkv, d));
      kv.store(whole(Tensor::dK, nkv, d));
      kv.step();
    }
  }

 private:
  /// Per score of the dS kernel: naive's whole dS; eager's softmax backward after its product.
  std::uint64_t ds_flops() const { return flops::kNaiveSoftmaxBwdPerScore - (eager_ ? 1 : 0); }

  SramPlan plan(TileShape t) const override {
    return SramPlan{{gemm_phase("dV = PᵀdO", t, p_.dtype), gemm_phase("dP = dO Vᵀ", t, p_.dtype),
                     SramPhase{"dS = P ∘ (dP − D)",
                               {{"P row", 1, rows_.resident, p_.dtype, Storage::shared, 1},
                                {"dP row", 1, rows_.resident, p_.dtype, Storage::shared, 1}}},
                     gemm_phase("dQ = dS K", t, p_.dtype), gemm_phase("dK = dSᵀ Q", t, p_.dtype)}};
  }

  Problem p_;
  bool eager_;
  RowPasses rows_;
};

}  // namespace

std::unique_ptr<Schedule> make_naive_bwd(const ScheduleContext& ctx) { return std::make_unique<NaiveBackward>(ctx, false); }
std::unique_ptr<Schedule> make_eager_bwd(const ScheduleContext& ctx) { return std::make_unique<NaiveBackward>(ctx, true); }

}  // namespace iosim::detail
