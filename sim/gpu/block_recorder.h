// One thread block's events, recorded when it starts so that running blocks can take turns; what the
// exact and the fast GPU model (gpu_model.cpp, fast_run.cpp) both replay.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/event_sink.h"
#include "sim/core/traffic.h"
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
    transfer_sram += Bytes(t.tile.elements().value * t.times * elem(t.tile.tensor));
  }
  void on_compute(const Compute& c) override { compute.add(c); }
  void on_step() override { events.push_back({{}, Direction::hbm_to_sram, true}); }

  void reset(DType element) {
    element_ = element;
    events.clear();
    compute = {};
    transfer_sram = Bytes(0);
  }
  /// All shared-memory traffic: written by loads, read by stores and by the arithmetic.
  [[nodiscard]] Bytes sram() const { return transfer_sram + compute.sram_operands; }

  std::vector<Event> events;
  ComputeCounts compute;
  Bytes transfer_sram;  ///< written by loads, read by stores

 private:
  [[nodiscard]] std::uint64_t elem(Tensor t) const { return size_bytes(storage_type(t, element_)); }
  DType element_ = DType::fp16;
};

}  // namespace iosim
