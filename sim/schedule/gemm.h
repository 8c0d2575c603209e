// What standard attention's phases keep on chip: a cuBLAS-class GEMM tile, and rows of the n × n_kv
// matrices for the row-wise softmax kernels (one pass when the rows fit in SRAM, two otherwise).
#pragma once

#include <bit>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/emitter.h"
#include "sim/core/sram.h"
#include "sim/schedule/flops.h"
#include "sim/schedule/kernel.h"
#include "sim/schedule/schedule.h"

namespace iosim {

inline constexpr std::uint64_t kGemmDefault = 128;  ///< output tile of an fp16 GEMM
inline constexpr std::uint64_t kGemmSliceK = 32;    ///< k-slice staged in shared memory
inline constexpr std::uint64_t kGemmStages = 2;     ///< double buffering

/// A GEMM with a t.br × t.bc output tile: two stages of a B_r × 32 and a B_c × 32 slice in shared
/// memory, the fp32 accumulator in registers.
[[nodiscard]] inline SramPhase gemm_phase(std::string name, TileShape t, DType e) {
  return SramPhase{std::move(name),
                   {{"A slice", t.br, kGemmSliceK, e, Storage::shared, kGemmStages},
                    {"B slice", t.bc, kGemmSliceK, e, Storage::shared, kGemmStages},
                    {"C tile", t.br, t.bc, DType::fp32, Storage::registers, 1}}};
}

/// One GEMM of standard attention as the paper counts it (Schedule::emit): both operands loaded
/// whole, C = A·B (m × n, inner k), `scaled` elements of C scaled by τ, C stored whole, one step.
inline void emit_whole_gemm(const Emitter& e, TileRef a, TileRef b, std::uint64_t m, std::uint64_t n, std::uint64_t k,
                            TileRef c, std::uint64_t scaled = 0) {
  e.load(a);
  e.load(b);
  e.matmul(m, n, k);
  if (scaled > 0) e.vector(flops::kScalePerElement * scaled);
  e.store(c);
  e.step();
}

/// A row kernel over `matrices` n × n_kv matrices read together (softmax: S; its backward: P and dP):
/// one pass when a row of each fits in SRAM together, else two (statistics, then the output).
struct RowPasses {
  std::uint64_t passes = 1;
  std::uint64_t resident = 0;  ///< elements of each matrix's row held at once

  RowPasses(std::uint64_t n_kv, std::uint64_t matrices, DType e, Bytes limit) {
    const std::uint64_t row_bytes = n_kv * matrices * size_bytes(e);
    if (row_bytes <= limit.value) {
      resident = n_kv;
    } else {
      passes = 2;
      resident = std::bit_floor(limit.value / (matrices * size_bytes(e)));
    }
  }
  [[nodiscard]] bool one_pass() const { return passes == 1; }
};

}  // namespace iosim

namespace iosim {

/// Which dimension of a GEMM a stored operand's rows run along: A is m × k, B is k × n; an operand
/// stored transposed (Kᵀ in Q·Kᵀ, Pᵀ in Pᵀ·dO) has its rows along the other dimension.
enum class RowsAlong : std::uint8_t { m, n, k };

struct GemmOperand {
  Tensor tensor;
  RowsAlong rows;
};

/// C (m × n) = A (m × k) · B (k × n), one thread block per B_r × B_c tile of C in row-major order,
/// each loading k-slices of kGemmSliceK columns of its A panel and B panel: the thread blocks of a
/// cuBLAS-class GEMM, whose panel re-reads the L2 absorbs. `map`: how the grid's heads index the
/// tensors (the kernel's default when empty).
[[nodiscard]] inline std::unique_ptr<GridKernel> gemm_kernel(std::string name, std::uint64_t m, std::uint64_t n,
                                                             std::uint64_t k, GemmOperand a, GemmOperand b,
                                                             Tensor c, TileShape tile, std::uint64_t heads, DType e,
                                                             GridKernel::Map map = nullptr) {
  const Tiling tm{m, tile.br}, tn{n, tile.bc}, tk{k, kGemmSliceK};
  constexpr std::uint32_t kThreads = 256;
  const LaunchShape shape{kThreads, accumulator_registers(tile.br * tile.bc, kThreads),
                          gemm_phase("", tile, e).bytes(Storage::shared)};
  const auto slice = [](GemmOperand op, std::uint64_t other_begin, std::uint64_t other_size, const Span& ks) {
    // The operand's tile covering [other) along m or n, and the k-slice ks.
    return op.rows == RowsAlong::k ? TileRef{op.tensor, ks.begin, ks.size, other_begin, other_size}
                                   : TileRef{op.tensor, other_begin, other_size, ks.begin, ks.size};
  };
  return std::make_unique<GridKernel>(
      std::move(name), Tiling{tm.count() * tn.count(), 1}, heads, false, shape,
      [=](const Span& x, const Emitter& em) {
        const std::uint64_t i = x.first / tn.count(), j = x.first % tn.count();
        const std::uint64_t rows = tm.size(i), cols = tn.size(j);
        em.loop(tk, [&](const Span& ks, const Emitter& ek) {
          ek.load(slice(a, tm.begin(i), rows, ks));
          ek.load(slice(b, tn.begin(j), cols, ks));
          ek.matmul(rows, cols, ks.size, Bytes((rows + cols) * ks.size * size_bytes(e)));
          ek.step();
        });
        em.store(TileRef{c, tm.begin(i), rows, tn.begin(j), cols});
      },
      std::move(map));
}

/// A row-wise kernel over `rows` × `cols` matrices (a softmax, or its backward): one thread block per
/// row, reading the row of each input `passes` times and writing the row of the output once, with
/// `flops_per_element` vector FLOPs and `special_per_element` exps per element of the row.
[[nodiscard]] inline std::unique_ptr<GridKernel> row_kernel(std::string name, std::uint64_t rows, std::uint64_t cols,
                                                            std::vector<Tensor> inputs, Tensor output,
                                                            std::uint64_t passes, std::uint64_t flops_per_element,
                                                            std::uint64_t special_per_element, std::uint64_t heads,
                                                            Bytes smem) {
  const LaunchShape shape{256, kBaseRegisters, smem};
  return std::make_unique<GridKernel>(std::move(name), Tiling{rows, 1}, heads, true, shape,
                                      [=](const Span& r, const Emitter& em) {
                                        for (std::uint64_t p = 0; p < passes; ++p) {
                                          for (Tensor t : inputs) em.load(TileRef{t, r.begin, 1, 0, cols});
                                        }
                                        em.vector(flops_per_element * cols);
                                        em.special(special_per_element * cols);
                                        em.store(TileRef{output, r.begin, 1, 0, cols});
                                        em.step();
                                      });
}

}  // namespace iosim
