// The one place that counts: every transfer and computation a schedule emits lands here.
//
// Levels: `hbm` is the memory below SRAM as the FlashAttention paper counts it (a load reads HBM, a
// store writes it, a reduce does both); `sram` is the on-chip side of the same transfers (a load
// writes SRAM, a store reads it). Conservation: HBM reads = SRAM writes + reduce traffic, and so on;
// tests check it.
#pragma once

#include <array>
#include <cstdint>

#include "sim/core/event_sink.h"
#include "sim/core/traffic.h"

namespace iosim {

enum class Level : std::uint8_t { hbm, sram };
inline constexpr std::size_t kLevelCount = 2;

class Ledger final : public EventSink {
 public:
  /// `element` is the problem's type: it fixes the bytes of every tensor but the fp32 statistics.
  explicit Ledger(DType element) : element_(element) {}

  void on_transfer(const Transfer& t) override;
  void on_compute(const Compute& c) override;

  [[nodiscard]] const Traffic& at(Level level, Tensor t) const { return traffic_[lvl(level)][index(t)]; }
  [[nodiscard]] Traffic total(Level level) const;
  [[nodiscard]] const ComputeCounts& compute() const { return compute_; }
  [[nodiscard]] Flops matmul_flops() const { return compute_.matmul; }
  [[nodiscard]] Flops vector_flops() const { return compute_.vector; }
  /// exp and log evaluations.
  [[nodiscard]] Flops special_flops() const { return compute_.special; }
  [[nodiscard]] Flops flops() const { return compute_.flops(); }
  /// Shared-memory bytes the arithmetic reads (matrix products' operands), apart from the transfers.
  [[nodiscard]] Bytes sram_operand_bytes() const { return compute_.sram_operands; }
  /// Number of tile transfers, repeats included.
  [[nodiscard]] std::uint64_t transfers() const { return transfers_; }
  [[nodiscard]] DType element() const { return element_; }

  Ledger& operator+=(const Ledger& o);

 private:
  static constexpr std::size_t lvl(Level l) { return static_cast<std::size_t>(l); }

  DType element_;
  std::array<std::array<Traffic, kTensorCount>, kLevelCount> traffic_{};
  ComputeCounts compute_;
  std::uint64_t transfers_ = 0;
};

}  // namespace iosim
