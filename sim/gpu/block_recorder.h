// One thread block's events, recorded when it starts so that running blocks can take turns; what the
// exact and the fast GPU model (gpu_model.cpp, fast_run.cpp) both replay.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/event_sink.h"
#include "sim/core/transfer.h"

namespace iosim {

class BlockRecorder final : public EventSink {
 public:
  struct Event {
    TileRef tile;
    Direction dir = Direction::hbm_to_sram;
    bool step = false;
  };

  void on_transfer(const Transfer& t) override {
    for (std::uint64_t k = 0; k < t.times; ++k) events.push_back({t.tile, t.dir, false});
    sram += static_cast<double>(t.tile.elements().value * t.times * elem(t.tile.tensor));
  }
  void on_compute(const Compute& c) override {
    const auto f = static_cast<double>(c.flops.value) * static_cast<double>(c.times);
    switch (c.kind) {
      case ComputeKind::matmul: matmul += f; break;
      case ComputeKind::vector: vector += f; break;
      case ComputeKind::special: special += f; break;
    }
    sram += static_cast<double>(c.sram_read.value) * static_cast<double>(c.times);
  }
  void on_step() override { events.push_back({{}, Direction::hbm_to_sram, true}); }

  void reset(DType element) {
    element_ = element;
    events.clear();
    matmul = vector = special = sram = 0;
  }

  std::vector<Event> events;
  double matmul = 0, vector = 0, special = 0, sram = 0;

 private:
  [[nodiscard]] std::uint64_t elem(Tensor t) const { return size_bytes(storage_type(t, element_)); }
  DType element_ = DType::fp16;
};

}  // namespace iosim
