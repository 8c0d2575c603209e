// Counts of data moved and of arithmetic done, as value types: add them, subtract them (phase
// deltas), compare them.
#pragma once

#include "sim/core/transfer.h"
#include "sim/core/units.h"

namespace iosim {

struct Traffic {
  Elements read_elements;
  Elements write_elements;
  Bytes read_bytes;
  Bytes write_bytes;

  [[nodiscard]] Bytes bytes() const { return read_bytes + write_bytes; }
  [[nodiscard]] Elements elements() const { return read_elements + write_elements; }

  Traffic& operator+=(const Traffic& o) {
    read_elements += o.read_elements;
    write_elements += o.write_elements;
    read_bytes += o.read_bytes;
    write_bytes += o.write_bytes;
    return *this;
  }
  Traffic& operator-=(const Traffic& o) {
    read_elements -= o.read_elements;
    write_elements -= o.write_elements;
    read_bytes -= o.read_bytes;
    write_bytes -= o.write_bytes;
    return *this;
  }
  friend Traffic operator+(Traffic a, const Traffic& b) { return a += b; }
  friend Traffic operator-(Traffic a, const Traffic& b) { return a -= b; }
  friend bool operator==(const Traffic&, const Traffic&) = default;
};

/// Arithmetic: what compute events add up to. add() is the one place a Compute is counted: the
/// ledger, the trace and the GPU model's block recorder all count through it.
struct ComputeCounts {
  Flops matmul;
  Flops vector;
  Flops special;        ///< exp and log evaluations
  Bytes sram_operands;  ///< shared-memory bytes the arithmetic reads (matrix products' operands)

  void add(const Compute& c) {
    const Flops f = c.flops * c.times;
    sram_operands += c.sram_read * c.times;
    switch (c.kind) {
      case ComputeKind::matmul: matmul += f; break;
      case ComputeKind::vector: vector += f; break;
      case ComputeKind::special: special += f; break;
    }
  }
  [[nodiscard]] Flops flops() const { return matmul + vector + special; }

  ComputeCounts& operator+=(const ComputeCounts& o) {
    matmul += o.matmul;
    vector += o.vector;
    special += o.special;
    sram_operands += o.sram_operands;
    return *this;
  }
  ComputeCounts& operator-=(const ComputeCounts& o) {
    matmul -= o.matmul;
    vector -= o.vector;
    special -= o.special;
    sram_operands -= o.sram_operands;
    return *this;
  }
  friend ComputeCounts operator+(ComputeCounts a, const ComputeCounts& b) { return a += b; }
  friend ComputeCounts operator-(ComputeCounts a, const ComputeCounts& b) { return a -= b; }
  friend bool operator==(const ComputeCounts&, const ComputeCounts&) = default;
};

}  // namespace iosim
