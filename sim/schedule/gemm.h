// What standard attention's phases keep on chip: a cuBLAS-class GEMM tile, and rows of the n × n_kv
// matrices for the row-wise softmax kernels (one pass when the rows fit in SRAM, two otherwise).
#pragma once

#include <bit>
#include <cstdint>
#include <string>

#include "sim/core/sram.h"
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
